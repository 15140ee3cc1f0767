"""The numbers of a judge audit: acceptance per probe set, per category and overall.

A run accepts an answer when its score reaches the acceptance threshold (binary: CORRECT,
i.e. 100; rubric: `--accept-threshold`, default 50). A question's acceptance is the share of
its successful runs that accepted; a set's rate is the mean over questions (x100), with a
percentile bootstrap 95 % interval over questions (2,000 resamples, seed 0) and the
run-level ± (sample std across repeat indices: judge noise). Failed runs are dropped.

The benchmark declares its parts (`AuditParts`: its groups, how a probe record names its
question, the published reference's judge, the texts of audit.md) and builds its probe sets
(`ProbeSet`: a name, a kind, records, and optionally the file's recorded verdicts and a
published reference).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from locoscore import stats
from locoscore.generic.folder_parts import Groups
from locoscore.judge.plan import JudgmentRow
from locoscore.judge.settings import ResolvedJudge

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
EXAMPLES = 5
HISTOGRAM_BINS = 10  # rubric scores: [0, 10), [10, 20), ..., [90, 100]


class ProbeSet(Protocol):
    """A probe set as the audit reads it: records with a `key`, their group field, question,
    gold `answer` and the `prediction` judged; `expect` is "accept", "reject" or None (the
    user's own predictions); `reference` has `reference_overall` and
    `reference_by_category` (published acceptance, %) when the file is a pinned one."""

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def source(self) -> dict[str, Any]: ...

    @property
    def recorded(self) -> dict[str, Any] | None: ...

    @property
    def records(self) -> Sequence[Any]: ...

    @property
    def reference(self) -> Any: ...

    @property
    def expect(self) -> str | None: ...


@dataclass(frozen=True)
class AuditParts:
    """A benchmark's declared parts for the judge audit's numbers and documents."""

    groups: Groups
    probed: tuple[Any, ...]  # the groups probed, in the order audit.md shows them
    question_id: Callable[[Any], str]  # a probe record's question id, for the examples
    reference_judge: str  # who made the published reference acceptance
    reference_caption: str  # under the overview table: the published reference, recorded
    limits: tuple[str, ...]  # what the audit cannot measure, for audit.md
    title: str  # audit.html's title


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def acceptance_cell(runs: Sequence[Sequence[float | None]], threshold: float) -> dict[str, Any]:
    """`runs[q][r]`: the score of question q in run r (None: failed). Rates in %."""
    accepted = [
        [None if s is None else (100.0 if s >= threshold else 0.0) for s in q] for q in runs
    ]
    per_question = [m for q in accepted if (m := stats.mean_and_std(q)[0]) is not None]
    level = stats.run_level(accepted)
    cell: dict[str, Any] = {
        "n": len(per_question),
        "rate": None,
        "ci95": {"low": None, "high": None, "se": None},
        "run_level": {
            "per_run": [_round(m) for m in level.per_run_means],
            "mean": _round(level.mean),
            "std": _round(level.std),
        },
    }
    if per_question:
        ci = stats.bootstrap_mean_ci(
            per_question, resamples=BOOTSTRAP_RESAMPLES, seed=BOOTSTRAP_SEED
        )
        cell["rate"] = _round(ci.estimate)
        cell["ci95"] = {"low": _round(ci.low), "high": _round(ci.high), "se": _round(ci.se)}
    return cell


def score_distribution(runs: Sequence[Sequence[float | None]]) -> dict[str, Any]:
    """Rubric: every successful run's score in 10-point bins, and the deciles of the
    per-question mean scores."""
    scores = [s for q in runs for s in q if s is not None]
    counts = [0] * HISTOGRAM_BINS
    for score in scores:
        counts[min(int(score // 10), HISTOGRAM_BINS - 1)] += 1
    means = [m for q in runs if (m := stats.mean_and_std(q)[0]) is not None]
    deciles: list[float | None] = [None] * 9
    if means:
        import numpy as np

        deciles = [_round(float(v), 2) for v in np.quantile(means, [i / 10 for i in range(1, 10)])]
    return {
        "runs_scored": len(scores),
        "mean_score": _round(sum(means) / len(means)) if means else None,
        "histogram": {
            "bins": [
                f"{10 * i}-{10 * i + 9 if i < HISTOGRAM_BINS - 1 else 100}" for i in range(10)
            ],
            "counts": counts,
        },
        "question_mean_deciles": deciles,
    }


def _question_runs(
    records: Sequence[Any], rows_by_key: dict[str, list[float | None]], runs: int
) -> list[list[float | None]]:
    return [rows_by_key.get(r.key, [None] * runs) for r in records]


def _examples(
    probe_set: ProbeSet, per_question: list[list[float | None]], threshold: float, parts: AuditParts
) -> list[dict[str, Any]]:
    """The answers the judge got most wrong: rejected gold, accepted wrong answers."""
    if probe_set.expect is None:
        return []
    want_accept = probe_set.expect == "accept"
    picked = []
    for record, runs in zip(probe_set.records, per_question, strict=True):
        used = [s for s in runs if s is not None]
        if not used:
            continue
        share = sum(1 for s in used if s >= threshold) / len(used)
        wrong = 1 - share if want_accept else share
        if wrong > 0:
            picked.append((-wrong, record, share))
    picked.sort(key=lambda item: item[0])  # stable: dataset order among equals
    return [
        {
            "question_id": parts.question_id(r),
            "category": getattr(r, parts.groups.field),
            "question": r.question,
            "gold": r.answer,
            "answer": r.prediction,
            "accepted_share": round(share, 4),
        }
        for _, r, share in picked[:EXAMPLES]
    ]


def _reference(probe_set: ProbeSet, parts: AuditParts) -> dict[str, Any] | None:
    source = probe_set.reference
    if source is None:
        return None
    return {
        "judge": parts.reference_judge,
        "overall": source.reference_overall,
        "by_category": {str(c): v for c, v in source.reference_by_category.items()},
    }


def set_statistics(
    probe_set: ProbeSet,
    rows_by_key: dict[str, list[float | None]],
    judge: ResolvedJudge,
    threshold: float,
    parts: AuditParts,
) -> dict[str, Any]:
    runs = judge.settings.runs
    groups = parts.groups
    per_question = _question_runs(probe_set.records, rows_by_key, runs)
    overall = acceptance_cell(per_question, threshold)
    by_category = {}
    for cid in groups.order:
        picked = [
            q
            for r, q in zip(probe_set.records, per_question, strict=True)
            if getattr(r, groups.field) == cid
        ]
        if picked:
            by_category[str(cid)] = {
                "name": groups.names[cid],
                **acceptance_cell(picked, threshold),
            }
    section: dict[str, Any] = {
        "name": probe_set.name,
        "kind": probe_set.kind,
        "expect": probe_set.expect,
        "source": probe_set.source,
        "questions": len(probe_set.records),
        "failed_runs": sum(1 for q in per_question for s in q if s is None),
        "acceptance": {"overall": overall, "by_category": by_category},
    }
    rate = overall["rate"]
    if probe_set.expect == "accept":
        section["false_reject_rate"] = None if rate is None else _round(100.0 - rate)
    elif probe_set.expect == "reject":
        section["false_accept_rate"] = rate
    if judge.protocol == "rubric":
        section["scores"] = score_distribution(per_question)
    section["recorded"] = probe_set.recorded
    section["reference"] = _reference(probe_set, parts)
    section["examples"] = _examples(probe_set, per_question, threshold, parts)
    return section


def rows_by_key(rows: Sequence[JudgmentRow], runs: int) -> dict[str, list[float | None]]:
    out: dict[str, list[float | None]] = {}
    for row in rows:
        scores = out.setdefault(row.key, [None] * runs)
        if 0 <= row.run < runs:
            scores[row.run] = row.score
    return out


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f} %"


def _vague_or_most_lenient(sets: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The vague wrong-answer set (by name), else the wrong-answer set accepted most often."""
    probes = [s for s in sets if s["expect"] == "reject" and s["false_accept_rate"] is not None]
    vague = [s for s in probes if "vague" in s["name"]]
    return vague[0] if vague else max(probes, key=lambda s: s["false_accept_rate"], default=None)


def summary_line(sets: Sequence[dict[str, Any]]) -> str:
    """ "this judge accepts X % of vague wrong answers and rejects Y % of gold answers"."""
    floor = _vague_or_most_lenient(sets)
    parts = []
    if floor is not None and "vague" in floor["name"]:
        parts.append(f"accepts {_pct(floor['false_accept_rate'])} of vague wrong answers")
    elif floor is not None:
        parts.append(f"accepts {_pct(floor['false_accept_rate'])} of {floor['name']} answers")
    gold = next((s for s in sets if s["expect"] == "accept"), None)
    if gold is not None:
        parts.append(f"rejects {_pct(gold['false_reject_rate'])} of gold answers")
    return "this judge " + " and ".join(parts) if parts else "this judge: nothing audited"


def placement(sets: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """Where the user's predictions sit: their acceptance between the vague wrong answers (the
    floor a system that says little reaches; else the most lenient wrong-answer set) and the
    gold (the ceiling)."""
    mine = next((s for s in sets if s["kind"] == "predictions"), None)
    if mine is None:
        return None
    floor = _vague_or_most_lenient(sets)
    gold = next((s for s in sets if s["expect"] == "accept"), None)
    return {
        "predictions": mine["acceptance"]["overall"]["rate"],
        "floor": None
        if floor is None
        else {"set": floor["name"], "rate": floor["false_accept_rate"]},
        "ceiling": None if gold is None else gold["acceptance"]["overall"]["rate"],
    }


def placement_sentence(place: dict[str, Any]) -> str:
    text = f"Your predictions: {_pct(place['predictions'])} accepted by this judge"
    floor, ceiling = place["floor"], place["ceiling"]
    if floor is not None:
        text += f"; it accepts {_pct(floor['rate'])} of the {floor['set']} answers (the floor)"
    if ceiling is not None:
        text += f" and {_pct(ceiling)} of the gold answers (the ceiling)"
    return text + "."
