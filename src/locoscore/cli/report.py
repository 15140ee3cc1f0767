"""`locoscore report DIR`: rebuild every report from saved results, with no API call."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from locoscore.cli._app import app, console, handle_errors
from locoscore.report.build import build_reports


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
) -> None:
    """Write report.md, report.html (self-contained, charts inline), scores.csv and the
    statistics section of summary.json."""
    paths = build_reports(directory, paper_columns=paper_columns, svg_dir=svg)
    for path in paths:
        console.print(f"wrote {path}", highlight=False)
