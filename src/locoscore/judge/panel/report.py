"""panel.md: a judge panel's account as a Markdown page (`summary.panel_section`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def _cell(value: Any, places: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{places}f}"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"

    return [line(headers), line(["---"] * len(headers)), *(line(r) for r in rows), ""]


def panel_markdown(section: Mapping[str, Any]) -> str:
    judges = section["judges"]
    types = list(section["spread"]["by_type"])
    out = [
        "# Judge panel",
        "",
        f"Every judge judged the same answers; each keeps its own folder and signature. "
        f"{section['headline']}, with its bootstrap 95 % interval; {section['verdict']}.",
        "",
        "## Headline under each judge",
        "",
    ]
    rows = []
    for name, j in judges.items():
        if j["status"] != "ok":
            rows.append([name, j["template"], f"FAILED: {j.get('error')}", "", *[""] * len(types)])
            continue
        overall = j["overall"]
        ci = overall.get("ci95") or (None, None)
        interval = f"{_cell(overall['mean'])} [{_cell(ci[0])}, {_cell(ci[1])}]"
        per_type = [_cell(j["by_type"][t]["mean"]) for t in types]
        rows.append([name, j["template"], interval, str(overall["count"]), *per_type])
    spread = section["spread"]
    rows.append(
        ["spread (max - min)", "", _cell(spread["overall"]), "",
         *[_cell(spread["by_type"][t]) for t in types]]
    )  # fmt: skip
    out += _table(["judge", "template", "J [95 % CI]", "n", *types], rows)
    accepts = [(n, j["template"], j["accepts"]) for n, j in judges.items() if j.get("accepts")]
    if accepts:
        out += ["What each built-in template accepts:", ""]
        out += [f"- **{n}** ({t}): {a}" for n, t, a in accepts]
        out.append("")
    out += ["## Agreement on verdicts", ""]
    agree = section["agreement"]
    rows = [
        [f"Cohen's kappa {p['a']} vs {p['b']}", _cell(p["overall"], 3),
         *[_cell(p["by_type"][t], 3) for t in types]]
        for p in agree["cohen_kappa"]
    ]  # fmt: skip
    alpha = agree["krippendorff_alpha"]
    rows.append(
        ["Krippendorff's alpha (nominal, all judges)", _cell(alpha["overall"], 3),
         *[_cell(alpha["by_type"][t], 3) for t in types]]
    )  # fmt: skip
    out += _table(["statistic", "overall", *types], rows)
    out += ["n/a: no question to compare, or every verdict the same (nothing to agree on).", ""]
    split = section["split"]
    out += [f"## Questions the judges split on ({len(split)})", ""]
    if split:
        names = list(judges)
        rows = [
            [q["question_id"], q["type"], q.get("question") or "",
             *[_verdict(q["right"].get(n)) for n in names if n in q["right"]]]
            for q in split
        ]  # fmt: skip
        shown = [n for n in names if n in split[0]["right"]]
        out += _table(["question", "type", "text", *shown], rows)
    else:
        out += ["None: every judge gave every question the same verdict.", ""]
    if section.get("losses"):
        out += loss_markdown(section["losses"])
    if section.get("self_judged"):
        out += [
            f"**Self-judging**: {', '.join(section['self_judged'])} is the model that made the "
            f"answers ({section.get('answer_model')}); a judge favours its own model's answers.",
            "",
        ]
    if section["failed"]:
        failed = ", ".join(section["failed"])
        out += [f"**Failed judges** (no figure above rests on them): {failed}", ""]
    return "\n".join(out)


def loss_markdown(losses: Mapping[str, Any]) -> list[str]:
    """Why each question was lost: causes per type, the gold-evidence figures, and the
    cause of every lost question."""
    from locoscore.judge.panel.losses import CAUSES

    out = [
        f"## Why each question was lost ({losses['lost']} of {losses['questions']})",
        "",
        "A question is lost when it is not correct under every judge of the panel.",
        "",
    ]
    rows = [
        [t, *(str(counts.get(c, 0)) for c in CAUSES)] for t, counts in losses["by_type"].items()
    ]
    rows.append(["overall", *(str(losses["overall"].get(c, 0)) for c in CAUSES)])
    out += _table(["type", *CAUSES], rows)
    gold = losses.get("gold_evidence")
    if gold:
        p, share = gold["p_correct_given_gold_retrieved"], gold["memory_share_of_losses"]
        out += [
            f"With the gold-evidence run ({gold['questions']} questions in common): "
            f"P(correct under every judge | gold retrieved) = "
            f"{_cell(None if p is None else 100 * p)} %; "
            f"{gold['lost_answered_with_gold']} of the {gold['lost']} lost questions are "
            f"correct under every judge with the gold evidence, so the memory system, not the "
            f"answerer, "
            f"is responsible for {_cell(None if share is None else 100 * share)} % of the losses.",
            "",
        ]
    if losses["causes"]:
        out += _table(["question", "loss cause"], [[q, c] for q, c in losses["causes"].items()])
    return out


def _verdict(value: bool | None) -> str:
    return "n/a" if value is None else ("right" if value else "wrong")
