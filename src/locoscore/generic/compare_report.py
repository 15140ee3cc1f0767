"""Markdown and HTML for `locoscore compare`: paired differences B - A, intervals and tests;
with more than two folders, each against the first with Holm-adjusted p-values."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from locoscore._io import write_text_atomic
from locoscore.generic.folder_parts import Groups
from locoscore.generic.paired_folders import (
    ALPHA,
    BOOTSTRAP_RESAMPLES,
    Comparison,
    MetricComparison,
    PairedCell,
    paired_rows,
    side_name,
)
from locoscore.generic.scored_folder import Results
from locoscore.report import charts
from locoscore.report.csv import csv_cell
from locoscore.report.document import Block, Figure, Heading, Notes, Paragraph, Table
from locoscore.report.html import render_html
from locoscore.report.markdown import render_markdown
from locoscore.report.numbers import fmt
from locoscore.report.numbers import format_p as format_p
from locoscore.results.layout import COMPARE_HTML, COMPARE_MD, DIFFERENCES_CSV

EXAMPLE_KEYS = 5


def _name(comparison: Comparison, which: str, label: str | None = None) -> str:
    return _folder_name(comparison.a if which == "A" else comparison.b, label or which)


def _folder_name(results: Results, which: str) -> str:
    source = (results.summary.get("input") or {}).get("path")
    return f"{which} = {results.path}" + (f" (input {source})" if source else "")


def _row(label: str, cell: PairedCell, decimals: int) -> list[str]:
    verdict = "yes" if cell.significant else "no"
    holm = [] if cell.p_adjusted is None else [format_p(cell.p_adjusted)]
    return [
        label,
        str(cell.n),
        fmt(cell.mean_a, decimals),
        fmt(cell.mean_b, decimals),
        f"{cell.difference:+.{decimals}f}",
        f"[{cell.ci.low:+.{decimals}f}, {cell.ci.high:+.{decimals}f}]",
        format_p(cell.wilcoxon.p_value),
        *holm,
        verdict,
    ]


def metric_blocks(
    groups: Groups, mc: MetricComparison, view: str = "", b: str = "B"
) -> list[Block]:
    """One metric's table and chart; `view` names a view other than all questions, `b` the
    folder compared with A."""
    d = mc.metric.decimals
    holm = mc.overall.p_adjusted is not None
    rows = [_row(groups.label(c), cell, d) for c, cell in mc.by_category.items()]
    rows.append(_row(f"overall ({groups.scope(mc.includes_excluded)})", mc.overall, d))
    headers = [
        "Category",
        "n",
        "A",
        b,
        f"{b} - A",
        f"95 % CI of {b} - A",
        "Wilcoxon p",
        *(["Holm p"] if holm else []),
        f"significant at {ALPHA:.0%}",
    ]
    numeric = (False, True, True, True, True, False, True, *((True,) if holm else ()), False)
    label = f"{mc.metric.label} ({view})" if view else mc.metric.label
    blocks: list[Block] = [
        Heading(label, 3),
        Table(headers, rows, frozenset({len(rows) - 1}), numeric),
    ]
    if mc.mcnemar is not None:
        m = mc.mcnemar
        adjusted = (
            ""
            if mc.mcnemar_p_adjusted is None
            else f" (Holm-adjusted {format_p(mc.mcnemar_p_adjusted)})"
        )
        blocks.append(
            Paragraph(
                f"McNemar (exact) on majority verdicts: {m.only_a} questions correct only in A, "
                f"{m.only_b} correct only in {b}, p = {format_p(m.p_value)}{adjusted}."
            )
        )
    names = [groups.names[c] for c in mc.by_category] + ["overall"]
    cells = [*mc.by_category.values(), mc.overall]
    svg = charts.grouped_bar_chart(
        f"{label}: A and {b} by category",
        names,
        [
            charts.BarSeries("A", [c.mean_a for c in cells]),
            charts.BarSeries(b, [c.mean_b for c in cells]),
        ],
        mc.metric.label,
        y_max=100,
    )
    suffix = f"-{view.replace(' ', '-')}" if view else ""
    suffix += "" if b == "B" else f"-{b}"
    blocks.append(Figure(f"compare-{mc.metric.column}{suffix}", label, svg))
    return blocks


def answer_length_blocks(c: Comparison, b: str = "B", level: int = 2) -> list[Block]:
    if c.answer_lengths is None:
        return []
    length_a, length_b = c.answer_lengths
    rows = []
    for cid, la in length_a.by_category.items():
        lb = length_b.by_category[cid]
        rows.append(
            [
                c.parts.groups.label(cid),
                str(la.n),
                *_lengths(la.mean, la.median, lb.mean, lb.median),
            ]
        )
    oa, ob = length_a.overall, length_b.overall
    rows.append(["overall", str(oa.n), *_lengths(oa.mean, oa.median, ob.mean, ob.median)])
    return [
        Heading("Answer length", level),
        Table(
            ["Category", "n", "A mean words", "A median", f"{b} mean words", f"{b} median"],
            rows,
            frozenset({len(rows) - 1}),
            (False, True, True, True, True, True),
            "Whitespace-separated words of each prediction, on the shared questions. A lenient "
            "judge finds the gold more easily in a longer answer: a J difference between sides "
            "whose answer lengths differ a lot mixes memory with verbosity.",
        ),
    ]


def _lengths(*values: float) -> list[str]:
    return [fmt(v, 1) for v in values]


def subset_blocks(c: Comparison, b: str = "B", level: int = 2) -> list[Block]:
    v = c.subset
    if v is None:
        return []
    blocks: list[Block] = [
        Heading(v.view.heading, level),
        Paragraph(v.view.describe(c.paired, v.excluded, v.paired)),
    ]
    for mc in v.metrics:
        blocks += metric_blocks(c.parts.groups, mc, v.view.name, b)
    if not v.metrics:
        blocks.append(Paragraph("No metric is present in both folders on these questions."))
    return blocks


def _keys(items: list[str]) -> str:
    shown = ", ".join(items[:EXAMPLE_KEYS])
    more = f" and {len(items) - EXAMPLE_KEYS} more" if len(items) > EXAMPLE_KEYS else ""
    return f"{len(items)} ({shown}{more})" if items else "0"


def _shared(c: Comparison, b: str) -> Paragraph:
    return Paragraph(
        f"{c.paired} questions in both; only in A: {_keys(c.only_in_a)}; only in {b}: "
        f"{_keys(c.only_in_b)}. Only the shared questions are compared."
    )


def _method(c: Comparison, b: str, csv: str) -> str:
    return (
        f"{b} - A per question, averaged. 95 % CI: paired bootstrap over questions "
        f"({BOOTSTRAP_RESAMPLES:,} resamples, seed 0). Wilcoxon signed-rank: two-sided, "
        f"zero differences dropped, normal approximation with tie correction. "
        f"{c.parts.scales}. Every question's difference: {csv}."
    )


def comparison_blocks(c: Comparison) -> list[Block]:
    blocks: list[Block] = [
        Heading("locoscore compare: is B better than A?", 1),
        Notes([_name(c, "A"), _name(c, "B")]),
        _shared(c, "B"),
        Paragraph(_method(c, "B", DIFFERENCES_CSV)),
    ]
    if c.warnings:
        blocks += [Heading("Warnings"), Notes(c.warnings)]
    for mc in c.metrics:
        blocks += metric_blocks(c.parts.groups, mc)
    if not c.metrics:
        blocks.append(Paragraph("No metric is present in both folders on shared questions."))
    return blocks + answer_length_blocks(c) + subset_blocks(c)


def _overview(comparisons: list[Comparison]) -> Table:
    """Every folder's overall difference from A on every metric, with both p-values."""
    rows = []
    for i, c in enumerate(comparisons, start=1):
        for mc in c.metrics:
            # the pairwise row (n ... Holm p, verdict), labelled with folder and metric
            rows.append([side_name(i), *_row(mc.metric.label, mc.overall, mc.metric.decimals)])
    return Table(
        ["Folder", "Metric", "n", "A", "folder", "folder - A", "95 % CI", "Wilcoxon p",
         "Holm p", f"significant at {ALPHA:.0%} (Holm)"],
        rows,
        numeric=(False, False, True, True, True, True, False, True, True, False),
    )  # fmt: skip


def many_comparison_blocks(comparisons: list[Comparison]) -> list[Block]:
    """N - 1 folders against A: an overview, then each comparison in full."""
    names = [_folder_name(comparisons[0].a, "A")]
    names += [_folder_name(c.b, side_name(i)) for i, c in enumerate(comparisons, start=1)]
    blocks: list[Block] = [
        Heading(f"locoscore compare: {len(comparisons)} folders against A", 1),
        Notes(names),
        Paragraph(
            _method(comparisons[0], "X", "differences-X.csv for folder X")
            + f" Multiple comparisons: the {len(comparisons)} comparisons with A are "
            "corrected with Holm's step-down method (family-wise error rate 5 %), one family "
            "per metric and category cell (McNemar's test its own family); a difference is "
            "called significant only when its Holm-adjusted p is below 0.05."
        ),
        Heading("Overview (overall, each folder against A)"),
        _overview(comparisons),
    ]
    warnings = [
        f"{side_name(i)}: {w}" for i, c in enumerate(comparisons, start=1) for w in c.warnings
    ]
    if warnings:
        blocks += [Heading("Warnings"), Notes(warnings)]
    for i, c in enumerate(comparisons, start=1):
        b = side_name(i)
        blocks += [Heading(f"{b} against A"), _shared(c, b)]
        for mc in c.metrics:
            blocks += metric_blocks(c.parts.groups, mc, b=b)
        if not c.metrics:
            blocks.append(Paragraph(f"No metric is present in both A and {b}."))
        blocks += answer_length_blocks(c, b, 3) + subset_blocks(c, b, 3)
    return blocks


def differences_csv(c: Comparison) -> str:
    """One row per shared question: each compared metric in A and in B and B - A (display
    scale; empty where either side has no score), to find the questions that changed."""
    metrics = [mc.metric for mc in c.metrics]
    fields = [*c.parts.id_fields, c.parts.groups.field, "question"]
    header = list(fields)
    for m in metrics:
        header += [f"{m.column}_a", f"{m.column}_b", f"{m.column}_diff"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for ra, rb in paired_rows(c):
        line = [ra.get(name) for name in fields]
        for m in metrics:
            va, vb = (
                None if v is None else round(v * m.scale, 4)
                for v in (ra.get(m.column), rb.get(m.column))
            )
            diff = None if va is None or vb is None else round(vb - va, 4)
            line += [va, vb, diff]
        writer.writerow([csv_cell(v) for v in line])
    return buffer.getvalue()


def write_comparisons(comparisons: list[Comparison], out: Path) -> list[Path]:
    """compare.md, compare.html and the per-question differences: differences.csv for two
    folders, differences-B.csv, differences-C.csv, ... for more."""
    if len(comparisons) == 1:
        blocks = comparison_blocks(comparisons[0])
        csvs = {out / DIFFERENCES_CSV: differences_csv(comparisons[0])}
    else:
        blocks = many_comparison_blocks(comparisons)
        csvs = {
            out / f"differences-{side_name(i)}.csv": differences_csv(c)
            for i, c in enumerate(comparisons, start=1)
        }
    outputs = {
        out / COMPARE_MD: render_markdown(blocks),
        out / COMPARE_HTML: render_html(blocks, "locoscore compare"),
        **csvs,
    }
    for path, text in outputs.items():
        write_text_atomic(path, text)
    return list(outputs)
