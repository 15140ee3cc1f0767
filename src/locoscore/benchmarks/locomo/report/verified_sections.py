"""Report blocks of the verified-gold view: what the errata flag in this run, the ceiling the
gold as written allows, and every metric again on the questions whose gold stands."""

from __future__ import annotations

from collections import Counter

from locoscore.benchmarks.locomo.categories import CATEGORY_NAMES, GROUPS
from locoscore.benchmarks.locomo.data.errata import ERROR_TYPES, SCORE_CHANGING
from locoscore.benchmarks.locomo.report.analysis import Analysis, VerifiedGoldView
from locoscore.benchmarks.locomo.report.verified import Ceiling
from locoscore.generic.metric_tables import breakdown_table, ci_text
from locoscore.report.document import Block, Heading, Paragraph, Table
from locoscore.report.numbers import DASH, fmt


def _citation_sentence(n: int) -> str:
    if n == 1:
        return (
            "1 question only cites the wrong evidence (WRONG_CITATION) and stays: its gold stands."
        )
    return (
        f"{n} questions only cite the wrong evidence (WRONG_CITATION) and stay: their gold stands."
    )


def _introduction(a: Analysis, view: VerifiedGoldView) -> Paragraph:
    errata = view.errata
    present = Counter(t for r in a.results.rows if (t := errata.error_type(r)) is not None)
    wrong = ", ".join(f"{t} {present[t]}" for t in SCORE_CHANGING if present[t])
    citation = sum(present[t] for t in ERROR_TYPES if t not in SCORE_CHANGING)
    checksum = "the audited list" if errata.checksum_ok else "DIFFERS from the audited list"
    return Paragraph(
        f"Gold errata: {errata.source or errata.path}, sha256 {errata.sha256} ({checksum}). "
        f"Of this run's {len(a.results.rows)} questions, {view.excluded} have a gold answer "
        f"the errata call wrong or ambiguous ({wrong or 'none'}): they are left out of this "
        f"view. {_citation_sentence(citation)} Every metric below is computed again on the "
        f"{view.questions} questions whose gold stands, with its own n and intervals."
    )


def _ceiling_row(label: str, c: Ceiling) -> list[str]:
    return [label, str(c.n), str(c.gold_wrong), str(c.citation_only), fmt(c.ceiling, 1)]


def ceiling_table(view: VerifiedGoldView) -> Table:
    ceilings = view.ceilings
    rows = [
        _ceiling_row(f"{CATEGORY_NAMES[cid]} ({cid})", c) for cid, c in ceilings.by_category.items()
    ]
    if ceilings.overall_no_adversarial is not None:
        rows.append(_ceiling_row("overall (excl. adversarial)", ceilings.overall_no_adversarial))
    if ceilings.overall_all.n != getattr(ceilings.overall_no_adversarial, "n", None):
        rows.append(_ceiling_row("overall (incl. adversarial)", ceilings.overall_all))
    return Table(
        ["Category", "questions", "gold wrong or ambiguous", "citation only", "ceiling (%)"],
        rows,
        numeric=(False, True, True, True, True),
        caption="Ceiling: the most a perfect system can score against the gold as written, "
        "the share of questions whose gold stands (a correct answer to a question with a "
        "wrong gold is graded wrong).",
    )


def _headline(a: Analysis, view: VerifiedGoldView) -> Table:
    rows = []
    for ms in a.metrics:
        verified = view.metric(ms.metric.column)
        d = ms.metric.decimals
        scope = GROUPS.scope(ms.overall_includes_excluded)
        if verified is None:
            rows.append([ms.metric.label, scope, str(ms.overall.n), fmt(ms.overall.mean, d)])
            rows[-1] += ["0", DASH, DASH, DASH]
            continue
        cell = verified.overall
        rows.append(
            [
                ms.metric.label,
                scope,
                str(ms.overall.n),
                fmt(ms.overall.mean, d),
                str(cell.n),
                fmt(cell.mean, d),
                ci_text(cell, d),
                ci_text(cell, d, clustered=True),
            ]
        )
    return Table(
        [
            "Metric",
            "Questions",
            "n (all)",
            "Score (all)",
            "n (verified gold)",
            "Score (verified gold)",
            "95 % CI (verified, bootstrap)",
            "95 % CI (verified, clustered)",
        ],
        rows,
        numeric=(False, False, True, True, True, True, False, False),
    )


def verified_gold_blocks(a: Analysis) -> list[Block]:
    view = a.verified
    if view is None:
        return []
    blocks: list[Block] = [
        Heading("Verified-gold view (gold errata)"),
        _introduction(a, view),
        Heading("Ceiling on the gold as written", 3),
        ceiling_table(view),
    ]
    if a.metrics:
        blocks += [Heading("All questions and verified gold", 3), _headline(a, view)]
    if view.metrics:
        blocks += [
            Heading("Per-category breakdown (verified gold)", 3),
            breakdown_table(
                view.metrics, [r for r in a.results.rows if view.errata.gold_stands(r)], GROUPS
            ),
        ]
    return blocks
