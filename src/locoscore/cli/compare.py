"""`locoscore compare A B [C ...]`: paired differences, intervals and tests on shared questions;
with more than two folders, each against the first, Holm-corrected."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from locoscore.benchmarks import benchmark_of
from locoscore.cli._app import app, console, handle_errors
from locoscore.cli._options import DatasetOpt, ErrataOpt, FolderBenchmarkOpt
from locoscore.data.dataset import resolve_dataset_path
from locoscore.data.errata import errata_for
from locoscore.errors import InputError
from locoscore.results.layout import COMPARE_HTML, COMPARE_JSON, COMPARE_MD

if TYPE_CHECKING:
    from locoscore.compare.paired import Comparison


@app.command("compare")
@handle_errors
def compare(
    folders: Annotated[
        list[Path],
        typer.Argument(
            help="Results folders: the first is the baseline (A), every other is compared "
            "with it (B, C, ...).",
            show_default=False,
            metavar="DIR",
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            help="Where to write compare.md, compare.html and differences.csv "
            "(differences-B.csv, differences-C.csv, ... for more than two folders).",
        ),
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
    Wilcoxon signed-rank test (McNemar on majority verdicts for a binary judge). With more
    folders (C, D, ...), each is compared with A and every p-value is Holm-adjusted across
    the comparisons. --errata implies --verified-gold.

    Writes into --out: compare.md, compare.html, differences.csv (differences-B.csv, ... for
    more than two folders; a benchmark with its own report: compare.md, compare.html,
    compare.json). Every output names its folders: A = DIR_A, B = DIR_B, ..."""
    # imported here, not at the top: `locoscore --help` stays free of NumPy and NLTK
    from locoscore.compare.paired import compare_many, side_name
    from locoscore.compare.report import write_comparisons
    from locoscore.report.load import load_results
    from locoscore.report.verified import comparison_errata

    if len(folders) < 2:
        raise InputError("compare needs at least two results folders (A B [C ...])")
    bench = benchmark_of(folders, benchmark)
    bench.require("compare")
    if bench.own_report:
        if len(folders) != 2:
            raise InputError(
                f"compare of {bench.name} folders takes exactly two (A B); "
                f"{len(folders)} were given"
            )
        dir_a, dir_b = folders
        result = bench.compare(dir_a, dir_b, out)
        _print_names(folders)
        for name, row in result["groups"].items():
            # a right/wrong judge's test (McNemar) or a graded one's (Wilcoxon)
            test = "McNemar" if "mcnemar_p" in row else "Wilcoxon"
            console.print(
                f"{name}: A {row['a']:.1f}, B {row['b']:.1f}, B - A {row['difference']:+.1f} "
                f"[{row['ci95'][0]:+.1f}, {row['ci95'][1]:+.1f}], {test} p "
                f"{row[test.lower() + '_p']:.3g}",
                highlight=False,
            )
        console.print(f"wrote {out}/{COMPARE_MD}, {COMPARE_HTML}, {COMPARE_JSON}", highlight=False)
        return
    results = [load_results(folder) for folder in folders]
    flags = None
    if verified_gold or errata is not None:
        recorded = (r.recorded_dataset_path() for r in results)
        dataset_path = resolve_dataset_path(dataset) or next(
            (path for path in recorded if path is not None), None
        )
        flags = comparison_errata(errata_for(errata, dataset_path), *results)
    comparisons = compare_many(results, flags)
    _print_names(folders)
    for i, comparison in enumerate(comparisons, start=1):
        _print_comparison(comparison, side_name(i), several=len(comparisons) > 1)
    for path in write_comparisons(comparisons, out):
        console.print(f"wrote {path}", highlight=False)


def _print_names(folders: list[Path]) -> None:
    """Which folder is A, B, ...: every figure printed after is named by these letters."""
    from locoscore.compare.paired import side_name

    for i, folder in enumerate(folders):
        console.print(f"{side_name(i)} = {escape(str(folder))}", highlight=False, soft_wrap=True)


def _print_comparison(comparison: Comparison, b: str, several: bool) -> None:
    from locoscore.compare.report import format_p

    table = Table(title=f"{b} - A on {comparison.paired} shared questions")
    columns = ["metric", "A", b, f"{b} - A", "95 % CI", "Wilcoxon p"]
    columns += ["Holm p"] if several else []
    for column in columns:
        table.add_column(column, justify="left" if column == "metric" else "right", overflow="fold")
    for mc in comparison.metrics:
        cell, d = mc.overall, mc.metric.decimals
        holm = [format_p(cell.p_value)] if several else []
        table.add_row(
            mc.metric.label,
            f"{cell.mean_a:.{d}f}",
            f"{cell.mean_b:.{d}f}",
            f"{cell.difference:+.{d}f}",
            f"[{cell.ci.low:+.{d}f}, {cell.ci.high:+.{d}f}]",
            format_p(cell.wilcoxon.p_value),
            *holm,
        )
    console.print(table)
    missing = len(comparison.only_in_a) + len(comparison.only_in_b)
    if missing:
        console.print(
            f"[yellow]{len(comparison.only_in_a)} questions only in A, "
            f"{len(comparison.only_in_b)} only in {b} (not compared)[/]"
        )
    if comparison.verified is not None:
        v = comparison.verified
        console.print(
            f"verified gold: {v.paired} shared questions whose gold stands "
            f"({v.excluded} left out); see compare.md",
            highlight=False,
        )
    for warning in comparison.warnings:
        prefix = f"{b}: " if several else ""
        console.print(
            f"[yellow]warning:[/] {escape(prefix + warning)}", highlight=False, soft_wrap=True
        )
