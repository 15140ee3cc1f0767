"""`locoscore compare DIR_A DIR_B`: paired differences, intervals and tests on shared questions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from locoscore.benchmarks import benchmark_of
from locoscore.cli._app import app, console, handle_errors
from locoscore.cli._options import DatasetOpt, ErrataOpt, FolderBenchmarkOpt
from locoscore.data.dataset import resolve_dataset_path
from locoscore.data.errata import errata_for


@app.command("compare")
@handle_errors
def compare(
    dir_a: Annotated[Path, typer.Argument(help="Results folder of system A (the reference).")],
    dir_b: Annotated[Path, typer.Argument(help="Results folder of system B.")],
    out: Annotated[
        Path,
        typer.Option("--out", help="Where to write compare.md, compare.html and differences.csv."),
    ] = Path("locoscore-compare"),
    verified_gold: Annotated[
        bool,
        typer.Option(
            "--verified-gold",
            help="Also compare on the questions whose gold stands under the gold errata "
            "(--errata, $LOCOSCORE_ERRATA, the fetched copy, or the list the folders recorded).",
        ),
    ] = False,
    errata: ErrataOpt = None,
    dataset: DatasetOpt = None,
    benchmark: FolderBenchmarkOpt = None,
) -> None:
    """Is B really better than A? Mean B - A per category with a paired bootstrap CI and a
    Wilcoxon signed-rank test (McNemar on majority verdicts for a binary judge).
    --errata implies --verified-gold.

    Writes into --out: compare.md, compare.html, differences.csv (a benchmark with its own
    report: compare.md, compare.json)."""
    # imported here, not at the top: `locoscore --help` stays free of NumPy and NLTK
    from locoscore.compare import compare_results
    from locoscore.report.comparison import format_p, write_comparison
    from locoscore.report.load import load_results
    from locoscore.report.verified import comparison_errata

    bench = benchmark_of([dir_a, dir_b], benchmark)
    bench.require("compare")
    if bench.own_report:
        result = bench.compare(dir_a, dir_b, out)
        for name, row in result["groups"].items():
            console.print(
                f"{name}: A {row['a']:.1f}, B {row['b']:.1f}, B - A {row['difference']:+.1f} "
                f"[{row['ci95'][0]:+.1f}, {row['ci95'][1]:+.1f}], McNemar p "
                f"{row['mcnemar_p']:.3g}",
                highlight=False,
            )
        console.print(f"wrote {out}/compare.md, compare.json", highlight=False)
        return
    results_a, results_b = load_results(dir_a), load_results(dir_b)
    flags = None
    if verified_gold or errata is not None:
        dataset_path = (
            resolve_dataset_path(dataset)
            or results_a.recorded_dataset_path()
            or results_b.recorded_dataset_path()
        )
        flags = comparison_errata(errata_for(errata, dataset_path), results_a, results_b)
    comparison = compare_results(results_a, results_b, flags)
    table = Table(title=f"B - A on {comparison.paired} shared questions")
    for column in ("metric", "A", "B", "B - A", "95 % CI", "Wilcoxon p"):
        table.add_column(column, justify="left" if column == "metric" else "right", overflow="fold")
    for mc in comparison.metrics:
        cell, d = mc.overall, mc.metric.decimals
        table.add_row(
            mc.metric.label,
            f"{cell.mean_a:.{d}f}",
            f"{cell.mean_b:.{d}f}",
            f"{cell.difference:+.{d}f}",
            f"[{cell.ci.low:+.{d}f}, {cell.ci.high:+.{d}f}]",
            format_p(cell.wilcoxon.p_value),
        )
    console.print(table)
    missing = len(comparison.only_in_a) + len(comparison.only_in_b)
    if missing:
        console.print(
            f"[yellow]{len(comparison.only_in_a)} questions only in A, "
            f"{len(comparison.only_in_b)} only in B (not compared)[/]"
        )
    if comparison.verified is not None:
        v = comparison.verified
        console.print(
            f"verified gold: {v.paired} shared questions whose gold stands "
            f"({v.excluded} left out); see compare.md",
            highlight=False,
        )
    for warning in comparison.warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False, soft_wrap=True)
    for path in write_comparison(comparison, out):
        console.print(f"wrote {path}", highlight=False)
