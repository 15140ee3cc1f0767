"""What a judge panel says: each judge's headline with its interval (never merged into one),
the spread between judges, their agreement on verdicts, and the questions they split on.

The headline under each judge is the mean of its per-question scores (0-100) with the
bootstrap 95 % interval the generic judge reports; verdicts for agreement are right/wrong
(`JudgedQuestion.verdict`). Agreement is over the questions both judges (kappa) or at least
two judges (alpha) have a verdict on; a judge that failed entirely is listed under `failed`
and left out of every figure, never dropped silently.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from locoscore.judge.panel.agreement import cohen_kappa, krippendorff_alpha_nominal
from locoscore.judge.panel.questions import JudgedQuestion
from locoscore.stats import mean_ci_by_type as aggregate

HEADLINE = "J: the mean judge score per question, 0-100"
VERDICT_RULE = "a question is right under a judge when its score is 50 or more"


@dataclass
class JudgeOutcome:
    """One panel judge after its pass: its folder's questions, or why it has none."""

    name: str
    folder: str  # relative to the panel folder
    template: str
    accepts: str | None
    signature: str | None = None
    questions: list[JudgedQuestion] = field(default_factory=list)
    error: str | None = None  # the judge failed: no figure rests on it
    model: str | None = None  # the model it asked for

    @property
    def ok(self) -> bool:
        return self.error is None


def _round(value: float | None, places: int = 4) -> float | None:
    return None if value is None else round(value, places)


def _spread(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return round(max(present) - min(present), 4) if len(present) >= 2 else None


def same_model(judge: str | None, answer: str | None) -> bool:
    """Whether the judge is the model that made the answers: the same name once its path
    (`Qwen/...`) and case are set aside (the claim card's rule)."""
    if not judge or not answer:
        return False
    return _bare(judge) == _bare(answer)


def _bare(model: str) -> str:
    return model.strip().lower().rsplit("/", 1)[-1]


def panel_section(
    outcomes: Sequence[JudgeOutcome], answer_model: str | None = None
) -> dict[str, Any]:
    """The panel's account; `answer_model` (the model that made the answers, None: not
    known) names the judges that are that model (`self_judged`)."""
    ok = [o for o in outcomes if o.ok]
    types = _type_order(ok)
    judges: dict[str, Any] = {}
    for o in outcomes:
        entry: dict[str, Any] = {
            "folder": o.folder,
            "template": o.template,
            "accepts": o.accepts,
            "signature": o.signature,
            "model": o.model,
            "same_model_as_answer": None if not answer_model or not o.model
            else same_model(o.model, answer_model),
            "status": "ok" if o.ok else "failed",
        }  # fmt: skip
        if o.ok:
            scored = {q.question_id: q.score / 100 for q in o.questions if q.score is not None}
            kinds = {q.question_id: q.type for q in o.questions}
            entry.update(aggregate(scored, kinds, types))
            entry["questions"] = len(o.questions)
        else:
            entry["error"] = o.error
        judges[o.name] = entry
    heads = [judges[o.name]["overall"]["mean"] for o in ok]
    section: dict[str, Any] = {
        "headline": HEADLINE,
        "verdict": VERDICT_RULE,
        "judges": judges,
        "answer_model": answer_model,
        "self_judged": [o.name for o in outcomes if same_model(o.model, answer_model)],
        "failed": [o.name for o in outcomes if not o.ok],
        "spread": {
            "overall": _spread(heads),
            "by_type": {
                t: _spread([judges[o.name]["by_type"][t]["mean"] for o in ok]) for t in types
            },
        },
        "agreement": agreement(ok, types),
        "split": split_questions(ok),
    }
    return section


def _type_order(outcomes: Sequence[JudgeOutcome]) -> list[str]:
    seen: dict[str, None] = {}
    for o in outcomes:
        for q in o.questions:
            seen.setdefault(q.type, None)
    return list(seen)


Table = tuple[list[str], dict[str, str], list[list[bool | None]]]


def _verdict_table(outcomes: Sequence[JudgeOutcome]) -> Table:
    """Question ids (first judge's order), their types, and each judge's verdict per
    question (None: that judge has no verdict on it)."""
    ids: dict[str, str] = {}
    for o in outcomes:
        for q in o.questions:
            ids.setdefault(q.question_id, q.type)
    by_judge = [{q.question_id: q.verdict for q in o.questions} for o in outcomes]
    table = [[v.get(qid) for v in by_judge] for qid in ids]
    return list(ids), ids, table


def agreement(outcomes: Sequence[JudgeOutcome], types: Sequence[str]) -> dict[str, Any]:
    """Cohen's kappa per pair of judges and Krippendorff's alpha (nominal) over all of them,
    overall and per type."""
    ids, kinds, table = _verdict_table(outcomes)

    def rows_of(kind: str | None) -> list[list[bool | None]]:
        return [row for qid, row in zip(ids, table, strict=True) if kind in (None, kinds[qid])]

    def kappa(i: int, j: int, rows: list[list[bool | None]]) -> float | None:
        return _round(cohen_kappa([r[i] for r in rows], [r[j] for r in rows]))

    pairs = [
        {
            "a": outcomes[i].name,
            "b": outcomes[j].name,
            "overall": kappa(i, j, rows_of(None)),
            "by_type": {t: kappa(i, j, rows_of(t)) for t in types},
        }
        for i, j in combinations(range(len(outcomes)), 2)
    ]
    return {
        "cohen_kappa": pairs,
        "krippendorff_alpha": {
            "overall": _round(krippendorff_alpha_nominal(rows_of(None))),
            "by_type": {t: _round(krippendorff_alpha_nominal(rows_of(t))) for t in types},
        },
    }


def split_questions(outcomes: Sequence[JudgeOutcome]) -> list[dict[str, Any]]:
    """The questions the judges with a verdict do not all agree on, for reading."""
    ids, kinds, table = _verdict_table(outcomes)
    texts = {q.question_id: q.question for o in outcomes for q in o.questions if q.question}
    scores = [{q.question_id: q.score for q in o.questions} for o in outcomes]
    out = []
    for qid, row in zip(ids, table, strict=True):
        if len({v for v in row if v is not None}) < 2:
            continue
        out.append(
            {
                "question_id": qid,
                "type": kinds[qid],
                "question": texts.get(qid),
                "right": {o.name: v for o, v in zip(outcomes, row, strict=True)},
                "scores": {
                    o.name: _round(s.get(qid), 2) for o, s in zip(outcomes, scores, strict=True)
                },
            }
        )
    return out


def question_scores(outcomes: Sequence[JudgeOutcome]) -> dict[str, dict[str, float | None]]:
    """Each judge's score per question (panel.json keeps them for the board)."""
    return {o.name: {q.question_id: q.score for q in o.questions} for o in outcomes if o.ok}


def _num(value: Any, unit: str = "") -> str:
    return "n/a" if value is None else f"{value:.1f}{unit}"


def _coefficient(value: Any) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def panel_lines(section: Mapping[str, Any], shown: int = 10) -> list[str]:
    """The terminal's account of the panel (the report's table in lines)."""
    lines = [f"panel of {len(section['judges'])} judges ({section['headline']})"]
    for name, j in section["judges"].items():
        if j["status"] != "ok":
            lines.append(f"  {name}: FAILED: {j.get('error')}")
            continue
        overall = j["overall"]
        ci = overall.get("ci95") or (None, None)
        lines.append(
            f"  {name} ({j['template']}): J {_num(overall['mean'])} "
            f"[{_num(ci[0])}, {_num(ci[1])}] (n={overall['count']})"
        )
    spread = section["spread"]
    lines.append(f"spread (largest - smallest J): {_num(spread['overall'], ' points')}")
    lines += [f"  {t}: {_num(v, ' points')}" for t, v in spread["by_type"].items()]
    agree = section["agreement"]
    for pair in agree["cohen_kappa"]:
        lines.append(f"Cohen's kappa {pair['a']} vs {pair['b']}: {_coefficient(pair['overall'])}")
    lines.append(
        f"Krippendorff's alpha (nominal, all judges): "
        f"{_coefficient(agree['krippendorff_alpha']['overall'])}"
    )
    split = section["split"]
    lines.append(f"questions the judges split on: {len(split)}")
    for q in split[:shown]:
        verdicts = ", ".join(
            f"{n} {'right' if v else 'wrong' if v is not None else 'n/a'}"
            for n, v in q["right"].items()
        )
        lines.append(f"  {q['question_id']} ({q['type']}): {verdicts}")
    if len(split) > shown:
        lines.append(f"  ... {len(split) - shown} more in panel.md")
    if losses := section.get("losses"):
        causes = ", ".join(f"{c} {n}" for c, n in losses["overall"].items()) or "none"
        lines.append(
            f"lost questions (not correct under every judge): {losses['lost']} of "
            f"{losses['questions']} ({causes})"
        )
        if gold := losses.get("gold_evidence"):
            p, share = gold["p_correct_given_gold_retrieved"], gold["memory_share_of_losses"]
            lines.append(
                f"P(correct under every judge | gold retrieved) "
                f"{_num(None if p is None else 100 * p, ' %')}; memory's share of the losses "
                f"{_num(None if share is None else 100 * share, ' %')}"
            )
    if section.get("self_judged"):
        lines.append(
            f"self-judging: {', '.join(section['self_judged'])} is the model that made the "
            f"answers ({section.get('answer_model')}); a judge favours its own model's answers"
        )
    if section["failed"]:
        lines.append(
            f"FAILED judges (no figure above rests on them): {', '.join(section['failed'])}"
        )
    return lines
