"""`locoscore audit --benchmark beam`: how lenient the rubric judge is, measured on answers
whose right score is known.

Three probe sets built from the data: the gold answer where the ability has one (should
score high), an empty answer (0 by construction: graded without a call), and an off-topic
answer — the gold of a question of another ability in another conversation (should score
low). Each set goes through the same rubric pass as a real run, so the figure is the
leniency of exactly the judge and protocol that score systems.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore._io import write_json_atomic, write_text_atomic
from locoscore.benchmarks.beam.data import ABILITIES, BeamDataset, BeamQuestion
from locoscore.benchmarks.beam.folder import scoring_protocol, signature
from locoscore.benchmarks.beam.judge_pass import (
    BeamJudgeResult,
    BeamPrediction,
    Sampler,
    beam_judge_pass,
    draw_sample,
)
from locoscore.data.sample import SampleSpec, with_sample
from locoscore.judge.engine import PassResult
from locoscore.judge.settings import JudgeSettings
from locoscore.report.document import Block, Heading, Paragraph, Preformatted, Table
from locoscore.report.html import render_html
from locoscore.report.markdown import render_markdown
from locoscore.results.layout import AUDIT_HTML, AUDIT_JSON, AUDIT_MD
from locoscore.summation import ordered_mean

PROBE_SETS = {
    "gold": "the benchmark's own answer: should score high",
    "empty": "no answer: scores 0 without a call",
    "off-topic": "another question's gold (other ability, other conversation): should score low",
}


def off_topic_source(question: BeamQuestion, pool: list[BeamQuestion]) -> BeamQuestion | None:
    """The first question after this one (in dataset order, wrapping) of another ability and
    conversation that has a gold answer: deterministic, never the same topic."""
    start = pool.index(question)
    for other in pool[start + 1 :] + pool[:start]:
        if (
            other.gold
            and other.ability != question.ability
            and other.conversation_id != question.conversation_id
        ):
            return other
    return None


def probe_predictions(data: BeamDataset) -> dict[str, list[BeamPrediction]]:
    pool = list(data.questions)
    sets: dict[str, list[BeamPrediction]] = {"gold": [], "empty": [], "off-topic": []}
    for q in pool:
        if q.gold:
            sets["gold"].append(BeamPrediction(q.question_id, q.gold, False))
        sets["empty"].append(BeamPrediction(q.question_id, "", False))
        other = off_topic_source(q, pool)
        if other is not None and other.gold:
            sets["off-topic"].append(BeamPrediction(q.question_id, other.gold, False))
    return sets


@dataclass
class BeamAudit:
    protocol: str
    signature: str
    sets: dict[str, BeamJudgeResult]
    document: dict[str, Any] | None = None

    def passes(self) -> list[PassResult]:
        return [p for result in self.sets.values() for p in result.passes()]

    @property
    def calls_planned(self) -> int:
        return sum(result.calls_planned for result in self.sets.values())


def _set_summary(result: BeamJudgeResult, probed: set[str]) -> dict[str, Any]:
    """Means over the probed questions only (the pass scores every question of the
    conversations it saw; unprobed ones would be 'missing')."""
    rows = [r for r in result.rows if r["question_id"] in probed and r["beam_score"] is not None]
    per_ability = {}
    for ability in ABILITIES:
        values = [r["beam_score"] for r in rows if r["ability"] == ability]
        if values:
            per_ability[ability] = {"mean": ordered_mean(values), "n": len(values)}
    scores = [r["beam_score"] for r in rows]
    return {
        "n": len(rows),
        "mean": ordered_mean(scores) if scores else None,
        "per_ability": per_ability,
    }


async def run_beam_audit(
    data: BeamDataset,
    settings: JudgeSettings,
    out: Path,
    *,
    dry_run: bool = False,
    sample: SampleSpec | None = None,
    sampler: Sampler,
    **pass_options: Any,
) -> BeamAudit:
    protocol = scoring_protocol(settings.protocol)
    official = protocol == "beam-official"
    sets = probe_predictions(data)
    drawn = draw_sample(
        sample, data.questions, sampler
    )  # one sample of the questions cuts every set
    if drawn is not None:
        sets = {name: drawn.keep(s, lambda p: p.question_id) for name, s in sets.items()}
    audit = BeamAudit(protocol, with_sample(signature(settings, official=official), drawn), {})
    for name, predictions in sets.items():
        audit.sets[name] = await beam_judge_pass(
            predictions,
            data,
            settings,
            out,
            official=official,
            dry_run=dry_run,
            sampler=sampler,
            **pass_options,
        )
    if dry_run or any(not result.fold.complete for result in audit.sets.values()):
        return audit  # a dry run, or a batch still running: no document yet
    audit.document = {
        "benchmark": "beam",
        "protocol": protocol,
        "signature": audit.signature,
        "sample": None if drawn is None else drawn.to_json(),
        "data": {"path": str(data.path), "sha256": data.sha256},
        "sets": {
            name: {
                "meaning": PROBE_SETS[name],
                **_set_summary(audit.sets[name], {p.question_id for p in sets[name]}),
            }
            for name in sets
        },
    }
    write_json_atomic(out / AUDIT_JSON, audit.document)
    blocks = audit_blocks(audit.document)
    write_text_atomic(out / AUDIT_MD, render_markdown(blocks))
    write_text_atomic(out / AUDIT_HTML, render_html(blocks, "BEAM rubric-judge audit"))
    return audit


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}"


def audit_blocks(document: dict[str, Any]) -> list[Block]:
    sets = document["sets"]
    subset = str((document.get("sample") or {}).get("signature") or "")
    rows = [
        [name, sets[name]["meaning"], str(sets[name]["n"]), _pct(sets[name]["mean"])]
        for name in sets
    ]
    by_ability = [
        [
            ability.replace("_", " "),
            *(_pct(sets[n]["per_ability"].get(ability, {}).get("mean")) for n in sets),
        ]
        for ability in ABILITIES
    ]
    return [
        Heading("BEAM rubric-judge audit", 1),
        Paragraph(
            "The judge scored answers whose right score is known. The off-topic set is its "
            "leniency: every point it earns is a point a wrong answer gets for free."
        ),
        Preformatted([document["signature"]]),
        Table(["probe set", "meaning", "n", "mean score"], rows, subset=subset),
        Heading("By ability"),
        Table(["ability", *sets], by_ability),
    ]
