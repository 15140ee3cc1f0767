"""`locoscore report DIR`: rebuild every report from saved results, with no API call."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from locoscore.benchmarks import benchmark_of
from locoscore.cli._app import app, console, handle_errors
from locoscore.cli._options import DatasetOpt, ErrataOpt, FolderBenchmarkOpt
from locoscore.data.dataset import resolve_dataset_path
from locoscore.data.errata import errata_for

if TYPE_CHECKING:
    from locoscore.report.analysis import Analysis


def _headline(analysis: Analysis) -> Table:
    table = Table(
        title="overall scores, 95 % intervals",
        caption="bootstrap over questions; clustered by conversation",
    )
    for column in ("metric", "n", "score", "bootstrap", "clustered"):
        table.add_column(column, justify="left" if column == "metric" else "right", overflow="fold")
    rows = [(ms, "") for ms in analysis.metrics]
    if analysis.verified is not None:
        rows += [(ms, " (verified gold)") for ms in analysis.verified.metrics]
    for ms, view in rows:
        d, cell = ms.metric.decimals, ms.overall
        boot, clus = cell.bootstrap, cell.clustered
        table.add_row(
            ms.metric.label + view,
            str(cell.n),
            f"{cell.mean:.{d}f}",
            f"[{boot.low:.{d}f}, {boot.high:.{d}f}]",
            f"[{clus.low:.{d}f}, {clus.high:.{d}f}]" if clus.se is not None else "n/a",
        )
    return table


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
    # imported here, not at the top: `locoscore --help` stays free of NumPy and NLTK
    from locoscore.report.build import build_reports
    from locoscore.report.load import load_results

    bench = benchmark_of([directory], benchmark)
    bench.require("report")
    if bench.own_report:
        for path in bench.report(directory):
            console.print(f"wrote {path}", highlight=False)
        return
    dataset_path = resolve_dataset_path(dataset) or load_results(directory).recorded_dataset_path()
    gold_errata = errata_for(errata, dataset_path)
    built = build_reports(
        directory,
        paper_columns=paper_columns,
        svg_dir=svg,
        errata=gold_errata,
        compare_anyway=compare_anyway,
    )
    console.print(_headline(built.analysis))
    for path in built.paths:
        console.print(f"wrote {path}", highlight=False)
