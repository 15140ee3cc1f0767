"""`locoscore audit`: how lenient is a judge configuration?

The judge of `locoscore judge` (same settings, cache, retries, batch, dry run, cost cap) is
run over probe sets whose right verdict is known: the gold answer as the answer (should be
accepted: the false-reject rate), deliberately wrong answers (should be rejected: the
false-accept rates), and optionally the user's own predictions (to place their J between
the two). All sets go through one pass (`api.run_pass`), so one cost cap, one batch and one
cache cover the audit; a probe record's key carries its set's name, so the same question in
two sets is two calls and a rerun after a crash resumes from `DIR/judge_cache.sqlite`.
The benchmark builds its sets (LoCoMo's: `benchmarks.locomo_probe_sets`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from locoscore.benchmarks.locomo.categories import GROUPS
from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.data.probes import REFERENCE_JUDGE, ProbeSource
from locoscore.benchmarks.locomo.data.recorded_verdicts import recorded_judge_summary
from locoscore.benchmarks.locomo.judge.from_records import judge_items
from locoscore.data.sample import QuestionSample, SampleSpec
from locoscore.errors import InputError
from locoscore.generic.audit_stats import AuditParts
from locoscore.judge.engine import PassResult, run_pass
from locoscore.judge.settings import JudgeSettings
from locoscore.results.identity import InputIdentity
from locoscore.results.layout import JUDGE_CACHE

Kind = Literal["gold", "probe", "predictions"]
GOLD_SET = "gold"
PREDICTIONS_SET = "predictions"
# LoCoMo's parts of the shared audit documents (`generic.audit_stats`, `audit_report`)
AUDIT = AuditParts(
    groups=GROUPS,
    probed=(4, 1, 2, 3),  # the LoCoMo paper's order, adversarial never probed
    question_id=lambda r: f"{r.sample_id}#{r.qa_index}",
    reference_judge=REFERENCE_JUDGE,
    reference_caption="Published reference: gpt-4o-mini with the generous binary prompt, for "
    "the pinned probe files only. Recorded: the verdicts stored in the probe file by the "
    "harness that made it (mean ± std over its runs).",
    limits=(
        "It measures leniency on synthetic answers whose right verdict is known: how often the "
        "judge accepts deliberately wrong answers and rejects the gold. It does not measure "
        "agreement with human graders on real system answers, and a judge that passes it can "
        "still be wrong in other ways (e.g. on partially right answers).",
        "The probe answers were written by one LLM in two styles; a judge tuned to these "
        "styles may behave differently on other kinds of wrong answers.",
        "About 6 % of LoCoMo's gold answers are themselves wrong or ambiguous, so a small "
        "false-reject rate on the gold is expected even from a good judge.",
    ),
    title="LoCoMo judge audit",
)


class ProbeRecord(PredictionRecord):
    """A question with a probe answer; its key names the probe set, so the same question in
    two sets is judged (and cached) separately. The user's predictions keep the plain key,
    which `locoscore judge` also uses, so their verdicts are shared through the caches."""

    probe_set: str = ""

    @property
    def question_key(self) -> str:
        """The question's own key, the same in every set."""
        return super().key

    @property
    def key(self) -> str:
        base = self.question_key
        return f"{base}@{self.probe_set}" if self.probe_set else base


@dataclass
class ProbeSet:
    name: str
    kind: Kind
    records: list[ProbeRecord]
    source: dict[str, Any]
    recorded: dict[str, Any] | None = None  # the file's own verdicts (recorded J)
    reference: ProbeSource | None = None  # published acceptance for a pinned probe file
    notes: list[str] = field(default_factory=list)
    identity: InputIdentity | None = None  # the user's predictions, as a results folder names them

    @property
    def expect(self) -> str | None:
        """What a sound judge does with every answer in the set."""
        return {"gold": "accept", "probe": "reject"}.get(self.kind)


def sample_sets(
    sets: list[ProbeSet],
    spec: SampleSpec | QuestionSample,
    draw: Callable[[SampleSpec | QuestionSample, list[tuple[str, int]]], QuestionSample | None],
) -> tuple[list[ProbeSet], QuestionSample]:
    """`--limit`: one sample of the gold set's questions (the dataset's non-adversarial ones,
    drawn as `run` draws it; or a run's own sample), and every set cut to those questions,
    so all sets probe the same questions."""
    gold = next(s for s in sets if s.kind == "gold")
    sample = draw(spec, [(r.question_key, r.category) for r in gold.records])
    assert sample is not None
    cut = []
    for s in sets:
        records = sample.keep(s.records, lambda r: r.question_key)
        # the file's own verdicts, on the same questions as the judge's
        recorded = s.recorded and recorded_judge_summary(
            records, {"judge_model": s.recorded.get("judge_model")}
        )
        cut.append(dataclasses.replace(s, records=records, recorded=recorded or None))
    return cut, sample


def check_names(sets: list[ProbeSet]) -> None:
    seen: dict[str, ProbeSet] = {}
    for probe_set in sets:
        earlier = seen.get(probe_set.name)
        if earlier is not None:
            raise InputError(
                f"two probe sets are named {probe_set.name!r} (also "
                f"{earlier.source.get('path')}); rename one file",
                file=str(probe_set.source.get("path")),
                field="--probes",
            )
        seen[probe_set.name] = probe_set


def audit_settings(settings: JudgeSettings) -> JudgeSettings:
    """The probe sets have no adversarial questions; the audit never judges category 5."""
    return dataclasses.replace(settings, include_adversarial=False)


async def run_audit(
    sets: list[ProbeSet], settings: JudgeSettings, out_dir: Path, **options: Any
) -> PassResult:
    """One judge pass over every probe set, cached in `out_dir/judge_cache.sqlite`;
    `options` are the engine's (`engine.run_pass`)."""
    check_names(sets)
    records: list[PredictionRecord] = [r for s in sets for r in s.records]
    judged = audit_settings(settings)
    return await run_pass(
        judge_items(records, judged.include_adversarial),
        judged,
        out_dir / JUDGE_CACHE,
        job="audit",
        **options,
    )


def calls_per_set(sets: list[ProbeSet], result: PassResult) -> dict[str, int]:
    """Calls still to make per probe set (a dry run's breakdown)."""
    owner = {r.key: s.name for s in sets for r in s.records}
    counts = {s.name: 0 for s in sets}
    for spec in result.plan.missing:
        counts[owner[spec.item.key]] += 1
    return counts
