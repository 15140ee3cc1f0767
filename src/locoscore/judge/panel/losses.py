"""Why each question was lost: one cause per question that a judge marked wrong.

Causes, first that applies wins (the order says whose fault a loss is, most doubtful first):

1. `gold disputed`: the benchmark's errata dispute the gold answer (`Benchmark.
   disputed_questions`), so the loss may be the benchmark's;
2. `judges split`: some judges of the panel say right, some wrong: the loss is the judge's
   call;
3. `not retrieved`: none of the question's gold evidence was among the retrieved items
   (`evidence_recall` 0 in the run's predictions): the memory lost it; an answerer that then
   says it does not know did the right thing, so this comes before abstaining;
4. `abstained`: the answer says the conversation does not tell (`abstains`);
5. `retrieved, answered wrong`: some gold evidence was retrieved, the answer is still wrong;
6. `wrong, retrieval unknown`: the run recorded no retrieval for the question (no evidence
   named, a system that gives no turn ids, or answers not made by `locoscore run`).

A question is lost when it is not correct under every judge of the panel. With a
`gold-evidence` run of the same data file and questions (every question's gold evidence
handed to the answerer), `P(correct under every judge | gold retrieved)` is the share of
questions it gets right under every judge of its own panel (or its one judge), and the share
of losses the memory system is responsible for is the share of this run's lost questions the
gold-evidence run gets right: given the evidence, the answerer answers them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore.errors import InputError

CAUSES = (
    "gold disputed",
    "judges split",
    "not retrieved",
    "abstained",
    "retrieved, answered wrong",
    "wrong, retrieval unknown",
)
# What an answer that declines says (the held-constant answer prompt asks for "Not mentioned
# in the conversation"); matched on the lowercased answer.
_ABSTAIN = re.compile(
    r"not mentioned|no information|not (?:stated|specified|provided|available)|"
    r"(?:do not|don't|cannot|can't) (?:know|tell|say|determine|recall)|"
    r"unable to (?:answer|determine|find)|no (?:record|mention)|^no idea\b|^unknown\.?$|"
    r"^none\.?$"
)


def abstains(answer: str) -> bool:
    return bool(_ABSTAIN.search(answer.strip().lower()))


@dataclass(frozen=True)
class AnswerFacts:
    """What the run recorded of one answer."""

    prediction: str = ""
    evidence_recall: float | None = None  # None: not known


def read_answer_facts(path: Path) -> dict[str, AnswerFacts]:
    """question_id -> the answer and its evidence recall, from a predictions file (lines
    without a `question_id` are not a run's and give nothing)."""
    facts: dict[str, AnswerFacts] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=str(path)) from None
    for number, line in enumerate(lines, 1):
        try:
            row = json.loads(line) if line.strip() else None
        except ValueError:
            raise InputError("not valid JSON", file=str(path), record=f"line {number}") from None
        if not isinstance(row, dict) or not isinstance(row.get("question_id"), str):
            continue
        recall = row.get("evidence_recall")
        prediction = row.get("prediction")
        facts[row["question_id"]] = AnswerFacts(
            prediction if isinstance(prediction, str) else "",
            float(recall) if isinstance(recall, int | float) else None,
        )
    return facts


def loss_cause(
    verdicts: Sequence[bool | None],
    facts: AnswerFacts | None,
    *,
    disputed: bool = False,
) -> str | None:
    """The cause of a lost question (None: not lost, or no judge gave a verdict)."""
    given = [v for v in verdicts if v is not None]
    if not given or all(given):
        return None
    if disputed:
        return "gold disputed"
    if any(given):
        return "judges split"
    facts = facts or AnswerFacts()
    if facts.evidence_recall == 0:
        return "not retrieved"
    if abstains(facts.prediction):
        return "abstained"
    if facts.evidence_recall is not None:
        return "retrieved, answered wrong"
    return "wrong, retrieval unknown"


def loss_section(
    verdicts: Mapping[str, Sequence[bool | None]],
    types: Mapping[str, str],
    facts: Mapping[str, AnswerFacts],
    disputed: frozenset[str],
    gold_right: Mapping[str, bool] | None = None,
) -> dict[str, Any]:
    """Every lost question's cause; the counts overall and per type (types in first-seen
    order); with `gold_right` (question -> the gold-evidence run got it right) the
    conditional accuracy and the memory's share of the losses."""
    causes = {
        q: c
        for q, v in verdicts.items()
        if (c := loss_cause(v, facts.get(q), disputed=q in disputed)) is not None
    }
    by_type: dict[str, Counter[str]] = {t: Counter() for t in dict.fromkeys(types.values())}
    for q, cause in causes.items():
        by_type[types[q]][cause] += 1
    section: dict[str, Any] = {
        "causes": causes,
        "overall": {c: n for c in CAUSES if (n := sum(t[c] for t in by_type.values()))},
        "by_type": {
            t: {c: counts[c] for c in CAUSES if counts[c]} for t, counts in by_type.items()
        },
        "lost": len(causes),
        "questions": len(verdicts),
    }
    if gold_right is not None:
        section["gold_evidence"] = gold_evidence_figures(causes, verdicts, gold_right)
    return section


def gold_evidence_figures(
    causes: Mapping[str, str],
    verdicts: Mapping[str, Sequence[bool | None]],
    gold_right: Mapping[str, bool],
) -> dict[str, Any]:
    shared = [q for q in verdicts if q in gold_right]
    lost = [q for q in causes if q in gold_right]
    memory = [q for q in lost if gold_right[q]]
    return {
        "questions": len(shared),
        "p_correct_given_gold_retrieved": _share(sum(gold_right[q] for q in shared), len(shared)),
        "lost": len(lost),
        "lost_answered_with_gold": len(memory),
        "memory_share_of_losses": _share(len(memory), len(lost)),
    }


def _share(part: int, whole: int) -> float | None:
    return None if whole == 0 else round(part / whole, 4)
