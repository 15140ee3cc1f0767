"""The claim card as lines: `verify` prints them, the report shows them as its first box,
`compare` prints the ones that differ between folders."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from locoscore.report.document import Block


_FAKE = " (locoscore's fake provider, not a real model)"


def _num(value: Any, decimals: int = 2) -> str:
    return "–" if value is None else f"{value:.{decimals}f}"


def _yes(value: bool | None) -> str:
    return "unknown" if value is None else ("yes" if value else "no")


def _pct(share: float | None) -> str:
    return "–" if share is None else f"{100 * share:.1f} %"


def card_lines(card: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, text) pairs, in the card's order."""
    b, q, m, j, f, r = (
        card["benchmark"],
        card["questions"],
        card["models"],
        card["judge"],
        card["failures"],
        card["retrieval"],
    )
    data = Path(str(b["data_file"])).name if b["data_file"] else "unknown file"
    released = f"released {b['version']}" if b["released"] else "not a released file"
    profile = f", protocol {b['protocol']}" if b.get("protocol") else ""
    lines = [
        (
            "benchmark",
            f"{b['name']}{profile}, data {data} ({released}, sha256 {str(b['sha256'])[:12]})",
        ),
    ]
    system = card.get("system") or {}
    if system.get("name"):
        role = f" ({system['role']})" if system.get("role") else ""
        lines.append(("system", f"{system['name']}{role}"))
    total = "unknown" if q["in_benchmark"] is None else f"{q['in_benchmark']:,}"
    if q["subset"]:
        scope = (
            f"subset: {q['sample']}"
            if q["sample"]
            else f"subset: {q['conversations']} conversation(s) of the run"
            if q["selected_by"] == "conversations"
            else "subset, size not recorded"
        )
    else:
        scope = "the whole benchmark" if q["subset"] is False else "total not established"
    lines.append(
        (
            "questions",
            f"{q['in_folder']:,} of {total} ({scope}); {q['answered']:,} answered; "
            f"headline over {q['denominator'] if q['denominator'] is not None else '–'}",
        )
    )
    if (chosen := card.get("selection")) is not None:
        from locoscore.claim.selection import selection_text

        lines.append(("selection", selection_text(chosen)))
    s = card["score"]
    lines.append(
        ("score", "not scored yet" if s is None else f"{s['label']} {_num(s['mean'])} (0-100)")
    )
    fake = m.get("fake") or {}
    answer = (
        m["answer"]
        or ("the system itself" if m["answered_by_system"] else None)
        or (f"{m['answer_provider']} (no model)" if m["answer_provider"] else None)
        or "not recorded (answers imported, not run here)"
    )
    lines.append(("answer model", str(answer) + (_FAKE if fake.get("answer") else "")))
    if j is None:
        takes = card["benchmark"].get("takes_judge", True)
        lines.append(("judge", "not judged" if takes else "none (scored without a judge)"))
    else:
        lines.append(
            (
                "judge",
                f"{m['judge']}{_FAKE if fake.get('judge') else ''}, {j['protocol']} prompt "
                + " ".join(str(x) for x in (j["prompt"], f"({j['prompt_hash']})") if x)
                + ", "
                f"{card['runs_per_question']} run(s) per question",
            )
        )
        lines.append(
            (
                "judge vs answerer",
                f"same model: {_yes(m['same_model'])}; same family: {_yes(m['same_family'])}"
                + (
                    " (self-judging allowed by --allow-self-judge)"
                    if m["same_model"] and (card.get("allowed") or {}).get("self_judge")
                    else ""
                ),
            )
        )
        audit = j["audit"]
        lines.append(
            (
                "judge audit",
                "none"
                if audit is None
                else ("yes: " if j["audited"] else "of another judge: ") + str(audit["result"]),
            )
        )
    kinds = ", ".join(f"{k.replace('_', ' ')} {n}" for k, n in f["by_kind"].items())
    lines.append(("failures", f"{f['failed']} of {f['of']} ({_pct(f['share'])}): {kinds}"))
    if r["recorded"] and not r.get("reported", True):
        lines.append(
            ("retrieval", "not reported by the system (it answers itself and names no items)")
        )
    elif r["recorded"] or r["items_stored"] is not None:
        stored = "not reported" if r["items_stored"] is None else f"{r['items_stored']:,}"
        haystack = (
            f"{r['haystack_min']}–{r['haystack_max']} {r['haystack_unit']}"
            if r["haystack_min"] is not None
            else "unknown"
        )
        flag = "; NOT A MEMORY TEST" if r["not_a_memory_test"] else ""
        lines.append(
            (
                "retrieval",
                f"items stored {stored}; nothing retrieved for {r['nothing_retrieved']} of "
                f"{r['questions_searched']} ({_pct(r['nothing_retrieved_share'])}); top-k "
                f"{r['top_k']} vs haystack {haystack}{flag}",
            )
        )
    else:
        lines.append(("retrieval", "not recorded (no run of a memory system in this folder)"))
    for role in ("floor", "ceiling"):
        ref = card[role]
        if ref is not None:
            lines.append(
                (
                    role,
                    f"{ref['system'] or ref['folder']} {_num(ref['score'])}; result - {role} "
                    f"{ref['difference']:+.2f} [{ref['ci95'][0]:+.2f}, {ref['ci95'][1]:+.2f}], "
                    f"p = {ref['p']:.3g} (n {ref['n']}; {ref.get('test', 'paired test')} over "
                    f"{ref.get('test_n')} non-zero differences)",
                )
            )
    if card["position"] is not None:
        lines.append(("position", f"{100 * card['position']:.0f} % of the way floor -> ceiling"))
    for blind in card["blind_floors"]:
        lines.append(
            (
                f"blind floor {blind['name']}",
                f"{_num(blind['score'])} ({blind['description']}); result above: "
                f"{_yes(blind['result_above'])}",
            )
        )
    margin = card.get("blind_margin")
    if isinstance(margin, dict) and margin.get("mean") is not None:
        low, high = margin.get("ci95") or (None, None)
        lines.append(
            (
                "margin over blind floor",
                f"{margin['mean']:+.2f} over {margin.get('over')} [{_num(low)}, {_num(high)}], "
                f"p = {margin.get('p_value')}",
            )
        )
    errata = card["errata_ceiling"]
    if errata is not None:
        text = (
            f"{_num(errata['ceiling'])} ({errata['gold_wrong']} of {errata['n']} golds wrong, "
            f"{errata['source']})"
            if errata.get("ceiling") is not None
            else f"not computed: {errata.get('how')}"
        )
        lines.append(("errata ceiling", text))
    return lines


def verdict_lines(claim: dict[str, Any]) -> list[str]:
    """The recorded gates that fail and the warnings, each one line."""
    gates = [g for g in claim.get("gates") or [] if g.get("status") == "fail"]
    return [f"FAIL {g['line']}" for g in gates] + [
        f"warning: {w}" for w in claim.get("warnings") or []
    ]


def card_blocks(claim: dict[str, Any] | None) -> list[Block]:
    """The report's first box: the gates that fail and the warnings, then the card."""
    from locoscore.report.document import Banner, Heading, Table

    if not claim:
        return []
    out: list[Block] = [Heading("Claim card")]
    if claim.get("error"):
        return [*out, Banner(f"Claim card not computed: {claim['error']}")]
    out += [Banner(line) for line in verdict_lines(claim)]
    rows = [[name, text] for name, text in card_lines(claim)]
    caption = "What this number can be believed for (docs/reference/claim-card.md)."
    out.append(Table(["claim", "value"], rows, caption=caption))
    return out


def differing_lines(cards: Sequence[tuple[str, dict[str, Any]]]) -> list[str]:
    """The card lines that differ between folders, each field once with every folder's text."""
    per = [(name, dict(card_lines(card))) for name, card in cards]
    fields = list(dict.fromkeys(k for _, lines in per for k in lines))
    out = []
    for key in fields:
        texts = [lines.get(key, "–") for _, lines in per]
        if len(set(texts)) > 1:
            named = (f"{name}: {text}" for (name, _), text in zip(per, texts, strict=True))
            out.append(f"{key}: " + " | ".join(named))
    return out
