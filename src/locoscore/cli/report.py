"""`locoscore report DIR`: rebuild every report from saved results, with no API call."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from locoscore.benchmarks import benchmark_of
from locoscore.benchmarks.calls import ReportCall
from locoscore.cli._app import EXIT_FAILED, app, handle_errors
from locoscore.cli._options import DatasetOpt, ErrataOpt, FolderBenchmarkOpt
from locoscore.cli._terminal import terminal
from locoscore.results.manifest import bound


@app.command("report")
@handle_errors
def report(
    directory: Annotated[Path, typer.Argument(help="Results folder from `locoscore score`.")],
    paper_columns: Annotated[
        bool,
        typer.Option(
            "--paper-columns",
            help="Also show Mem0-paper rows under the paper's own (mislabelled) column titles.",
        ),
    ] = False,
    svg: Annotated[
        Path | None,
        typer.Option("--svg", help="Also write each chart as a standalone .svg into this folder."),
    ] = None,
    errata: ErrataOpt = None,
    compare_anyway: Annotated[
        bool,
        typer.Option(
            "--compare-baselines-anyway",
            help="Show the published baselines even when answers of the run failed.",
        ),
    ] = False,
    dataset: DatasetOpt = None,
    benchmark: FolderBenchmarkOpt = None,
) -> None:
    """Rebuild the reports of a results folder, with no API call. With gold errata
    (--errata, $LOCOSCORE_ERRATA, the fetched copy, or recorded earlier in summary.json),
    also the verified-gold view.

    Writes into DIR: report.md, report.html (self-contained, charts inline), scores.csv and
    the "report" section of summary.json; with --svg, one .svg per chart into that
    folder."""
    bench = benchmark_of([directory], benchmark)
    bench.require("report")
    call = ReportCall(directory, paper_columns, svg, errata, compare_anyway, dataset)
    with bound(directory, "report") as binding:
        binding.read("dataset", dataset)
        binding.read("errata", errata)
        failed = bench.report_command(call, terminal())
    if failed:
        raise typer.Exit(EXIT_FAILED)
