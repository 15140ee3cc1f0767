"""The verified-gold view of a folder whose summary.json records gold errata
(`generic.gold_errata`), as the shared report's declared view (`errata_view_parts`): every
metric again on the questions whose gold stands, its summary.json entry, its report blocks
(what the errata flag in this run, the ceiling the gold as written allows) and its terminal
line."""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from locoscore.generic.folder_analysis import Analysis
from locoscore.generic.gold_errata import (
    Ceiling,
    ErrataFlags,
    ErrataTypes,
    GoldCeilings,
    gold_ceilings,
)
from locoscore.generic.metric_stats import MetricStats, all_metric_stats
from locoscore.generic.metric_tables import breakdown_table, ci_text
from locoscore.generic.report_build import metrics_section
from locoscore.generic.report_parts import ReportParts, ViewParts
from locoscore.generic.scored_folder import Results
from locoscore.report.document import Block, Heading, Paragraph, Table
from locoscore.report.numbers import DASH, fmt
from locoscore.results.layout import SUMMARY


@dataclass(frozen=True)
class VerifiedGoldView:
    """Every metric again on the questions whose gold stands under the recorded errata."""

    errata: ErrataFlags
    ceilings: GoldCeilings
    questions: int  # questions whose gold stands
    excluded: int  # questions left out: their gold is wrong or ambiguous
    excluded_by_category: dict[int, int]
    metrics: list[MetricStats]
    parts: ReportParts

    def metric(self, column: str) -> MetricStats | None:
        return next((m for m in self.metrics if m.metric.column == column), None)

    def flag(self, row: dict[str, Any]) -> str | None:
        return self.errata.error_type(row)

    def summary(self) -> dict[str, Any]:
        """`report.verified_gold`: the `metrics` schema, on the questions whose gold stands."""
        types = self.errata.types
        return {
            "view": "questions whose gold answer stands: errata types "
            + ", ".join(types.score_changing)
            + f" excluded; {types.kept_words} kept",
            "errata_sha256": self.errata.sha256,
            "errata_source": self.errata.source,
            "questions": self.questions,
            "excluded": self.excluded,
            "excluded_by_category": {str(c): n for c, n in self.excluded_by_category.items()},
            "ceiling": self.ceilings.to_dict(types),
            "metrics": metrics_section(self.metrics, self.parts),
        }


def verified_gold_view(
    results: Results, parts: ReportParts, types: ErrataTypes
) -> VerifiedGoldView | None:
    """The verified-gold view of a folder whose summary.json records errata, else None."""
    section = results.summary.get("errata")
    if section is None:
        return None
    flags = ErrataFlags.from_section(section, str(results.path / SUMMARY), types)
    kept = [r for r in results.rows if flags.gold_stands(r)]
    ceilings = gold_ceilings(results.rows, flags, parts.folder.groups)
    return VerifiedGoldView(
        errata=flags,
        ceilings=ceilings,
        questions=len(kept),
        excluded=len(results.rows) - len(kept),
        excluded_by_category={cid: c.gold_wrong for cid, c in ceilings.by_category.items()},
        metrics=all_metric_stats(replace(results, rows=kept), parts.folder),
        parts=parts,
    )


def verified_of(a: Analysis) -> VerifiedGoldView | None:
    view = a.view
    return view if isinstance(view, VerifiedGoldView) else None


def _citation_sentence(n: int, types: ErrataTypes) -> str:
    kept = types.kept_words
    if n == 1:
        return f"1 question only cites the wrong evidence ({kept}) and stays: its gold stands."
    return f"{n} questions only cite the wrong evidence ({kept}) and stay: their gold stands."


def _introduction(a: Analysis, view: VerifiedGoldView) -> Paragraph:
    errata = view.errata
    present = Counter(t for r in a.results.rows if (t := errata.error_type(r)) is not None)
    types = errata.types
    wrong = ", ".join(f"{t} {present[t]}" for t in types.score_changing if present[t])
    citation = sum(present[t] for t in types.gold_stands)
    checksum = "the audited list" if errata.checksum_ok else "DIFFERS from the audited list"
    return Paragraph(
        f"Gold errata: {errata.source or errata.path}, sha256 {errata.sha256} ({checksum}). "
        f"Of this run's {len(a.results.rows)} questions, {view.excluded} have a gold answer "
        f"the errata call wrong or ambiguous ({wrong or 'none'}): they are left out of this "
        f"view. {_citation_sentence(citation, types)} Every metric below is computed again on the "
        f"{view.questions} questions whose gold stands, with its own n and intervals."
    )


def _ceiling_row(label: str, c: Ceiling) -> list[str]:
    return [label, str(c.n), str(c.gold_wrong), str(c.citation_only), fmt(c.ceiling, 1)]


def ceiling_table(view: VerifiedGoldView) -> Table:
    ceilings, groups = view.ceilings, view.parts.folder.groups
    rows = [_ceiling_row(groups.label(cid), c) for cid, c in ceilings.by_category.items()]
    without = ceilings.overall_without_excluded
    if without is not None:
        rows.append(_ceiling_row(f"overall ({groups.scope(False)})", without))
    if ceilings.overall_all.n != getattr(without, "n", None):
        rows.append(_ceiling_row(f"overall ({groups.scope(True)})", ceilings.overall_all))
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
        scope = view.parts.folder.groups.scope(ms.overall_includes_excluded)
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
    view = verified_of(a)
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
                view.metrics,
                [r for r in a.results.rows if view.errata.gold_stands(r)],
                view.parts.folder.groups,
            ),
        ]
    return blocks


def verified_gold_line(analysis: Analysis) -> str | None:
    """One line on the verified-gold view, or None when no errata are recorded."""
    view = verified_of(analysis)
    if view is None:
        return None
    shown = []
    for ms in analysis.metrics:
        verified = view.metric(ms.metric.column)
        if verified is not None:
            d = ms.metric.decimals
            shown.append(
                f"{ms.metric.label} {ms.overall.mean:.{d}f} -> {verified.overall.mean:.{d}f}"
            )
    return (
        f"verified gold (errata sha256 {view.errata.sha256[:12]}...): {view.questions} of "
        f"{view.questions + view.excluded} questions kept, {view.excluded} with a wrong or "
        f"ambiguous gold left out" + (f"; {', '.join(shown)}" if shown else "")
    )


def errata_view_parts(types: ErrataTypes) -> ViewParts:
    """The verified-gold view as a report's declared view, for a benchmark's error types."""
    return ViewParts(
        functools.partial(verified_gold_view, types=types),
        "verified_gold",
        "gold_error",
        "Gold error (errata)",
        f"Gold error: the errata's type for a flagged question. All but {types.kept_words} "
        "mean the gold answer itself is wrong or ambiguous (left out of the verified-gold view).",
        verified_gold_blocks,
    )
