"""A benchmark's blind baselines (`Benchmark.blind_baselines`: floors computed without a
model, such as always picking a multiple-choice question's longest option) over a folder's
own questions, and the folder's margin over the best of them. One writer for every
benchmark and every command that scores a folder: `run`, `merge`, and a benchmark's
`score`; a judge pass keeps the section (the floors and the margin are in the benchmark's
metric, which judging does not change).

summary.json `floors`:
`{"scale": "0-100", "questions": N, "blind": [{"name", "description", "score", "ci95", "n",
"total", "by_type"}], "margin": {"over", "mean", "ci95", "count", "p_value"} | null}`.
`score` is the mean per-question score x100, the headline's scale, over the questions of the
types in the overall (as the headline counts them); `total` its sum over those `n`
questions (a multiple-choice floor's count right); `by_type` has every type's
`{mean, ci95, count}`. `margin`: the folder's metric (scores.jsonl `metric`) minus the best
floor's score, question by question over the questions both hold that count in the overall:
the mean x100 with its paired bootstrap 95 % interval and the two-sided Wilcoxon
signed-rank p (the board's paired test). None when the folder has no per-question metric.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from locoscore._io import read_jsonl, write_json_atomic
from locoscore.data.conversation import Question
from locoscore.results.folder import load_summary
from locoscore.results.layout import SCORES, SUMMARY

if TYPE_CHECKING:
    from locoscore.generic.parts import BlindBaseline


class FlooredBenchmark(Protocol):
    """What the floors ask of a benchmark (`Benchmark`'s own hooks), named here so that
    the generic layer, below the benchmarks, never imports them."""

    @property
    def excluded_from_overall(self) -> frozenset[int]: ...

    @property
    def type_order(self) -> tuple[int, ...]: ...

    def blind_baselines(
        self, data: Any, questions: Sequence[Question]
    ) -> tuple[BlindBaseline, ...]: ...

    def type_name(self, type_id: int) -> str: ...


def floor_margin(
    result: Mapping[str, float], floor: Mapping[str, float], ids: Sequence[str]
) -> dict[str, Any] | None:
    """Result minus floor over the `ids` both score (0..1 each): mean x100, its paired
    bootstrap 95 % interval (whole questions resampled) and the Wilcoxon p; None when no
    question is shared."""
    from locoscore.stats import bootstrap_mean_ci, wilcoxon_signed_rank

    shared = [q for q in ids if q in result and q in floor]
    if not shared:
        return None
    differences = [float(result[q]) - float(floor[q]) for q in shared]
    ci = bootstrap_mean_ci(differences)
    return {
        "mean": round(100 * ci.estimate, 4),
        "ci95": [round(100 * ci.low, 4), round(100 * ci.high, 4)],
        "count": len(shared),
        "p_value": round(wilcoxon_signed_rank(differences).p_value, 6),
    }


def blind_floors(
    benchmark: FlooredBenchmark,
    dataset: Any,
    questions: Sequence[Question],
    result: Mapping[str, float] | None = None,
) -> dict[str, Any] | None:
    """The `floors` section over `questions`, with the margin of `result` (question id ->
    the folder's metric, 0..1) over the best floor when given; None when the benchmark
    declares no blind baseline."""
    from locoscore.stats import mean_ci_by_type as aggregate

    baselines = benchmark.blind_baselines(dataset, questions)
    if not baselines:
        return None
    types = {q.question_id: benchmark.type_name(q.category) for q in questions}
    left_out = benchmark.excluded_from_overall
    # the question order of the run, so the paired bootstrap resamples a stable sequence
    in_overall = [q.question_id for q in questions if q.category not in left_out]
    order = [benchmark.type_name(t) for t in benchmark.type_order]
    blind, kept = [], []
    for baseline in baselines:
        # a question the baseline gives no score is not counted (`n` says how many were)
        scores = {q: float(v) for q, v in baseline.scores.items() if q in types}
        counted = {q: scores[q] for q in in_overall if q in scores}
        overall = aggregate(counted, types, [])["overall"]
        per_type = aggregate(scores, types, order)["by_type"]
        blind.append(
            {
                "name": baseline.name,
                "description": baseline.description,
                "score": overall["mean"],
                "ci95": overall["ci95"],
                "n": overall["count"],
                "total": round(sum(counted.values()), 6),
                "by_type": {t: block for t, block in per_type.items() if block["count"]},
            }
        )
        kept.append((baseline, counted))
    return {
        "scale": "0-100",
        "questions": len(questions),
        "blind": blind,
        "margin": None if result is None else _margin_over_best(kept, result, in_overall),
    }


def _margin_over_best(
    kept: Sequence[tuple[BlindBaseline, dict[str, float]]],
    result: Mapping[str, float],
    ids: Sequence[str],
) -> dict[str, Any] | None:
    # best: the highest mean over the questions the result holds; a tie goes to the one the
    # benchmark declares first
    shared = [q for q in ids if q in result]
    scored = [(b, s) for b, s in kept if any(q in s for q in shared)]
    if not scored:
        return None

    def mean(scores: Mapping[str, float]) -> float:
        held = [scores[q] for q in shared if q in scores]
        return sum(held) / len(held)

    best, scores = max(scored, key=lambda pair: mean(pair[1]))
    margin = floor_margin(result, scores, shared)
    return None if margin is None else {"over": best.name, **margin}


def folder_metric(out: Path) -> dict[str, float] | None:
    """Question id -> the folder's metric (scores.jsonl `metric`, 0..1) where it has one;
    None when no line does (no scores.jsonl, or a benchmark without a metric)."""
    path = out / SCORES
    if not path.is_file():
        return None
    values = {
        str(row["question_id"]): float(row["metric"])
        for row in read_jsonl(path)
        if isinstance(row.get("metric"), int | float) and not isinstance(row["metric"], bool)
    }
    return values or None


def record_floors(
    out: Path,
    summary: dict[str, Any],
    benchmark: FlooredBenchmark,
    dataset: Any,
    questions: Sequence[Question],
) -> dict[str, Any]:
    """summary.json (just written by the benchmark's scoring) with its `floors` section,
    the margin taken from the folder's scores.jsonl; the summary returned as it now is. A
    benchmark with none: unchanged."""
    floors = blind_floors(benchmark, dataset, questions, folder_metric(out))
    if floors is None:
        return summary
    written = load_summary(out)
    written["floors"] = floors
    write_json_atomic(out / SUMMARY, written)
    return {**summary, "floors": floors}
