"""`locoscore verify DIR [--floor DIR] [--ceiling DIR]`: can this number be believed?"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from locoscore.cli._app import EXIT_FAILED, app, console, handle_errors
from locoscore.cli._options import FolderBenchmarkOpt
from locoscore.errors import InputError

_SHARE = "a share of the questions, 0-1"


def _share(value: float, option: str) -> float:
    if not 0 <= value <= 1:
        raise InputError(f"{value}: expected {_SHARE}", field=option)
    return value


@app.command("verify")
@handle_errors
def verify(
    directory: Annotated[Path, typer.Argument(help="Results folder.", metavar="DIR")],
    floor: Annotated[
        Path | None,
        typer.Option(
            "--floor",
            help="Results folder of the floor (e.g. a `--system no-memory` run) on the same "
            "benchmark, data file and questions: the result must be significantly above it.",
            metavar="DIR",
        ),
    ] = None,
    ceiling: Annotated[
        Path | None,
        typer.Option(
            "--ceiling",
            help="Results folder of the ceiling (e.g. `--system gold-evidence`) on the same "
            "benchmark, data file and questions: shown with where the result sits.",
            metavar="DIR",
        ),
    ] = None,
    empty_share: Annotated[
        float,
        typer.Option(
            "--max-empty-retrieval",
            help="Fail when nothing was retrieved for at least this share of the questions "
            "searched (or the system reports 0 items stored).",
        ),
    ] = 0.5,
    failed_share: Annotated[
        float,
        typer.Option(
            "--max-failed",
            help="Fail when more than this share of the questions failed (answer errors, "
            "context overflows, no judge verdict).",
        ),
    ] = 0.02,
    alpha: Annotated[
        float,
        typer.Option(
            "--alpha",
            help="Significance level of the paired test against --floor (Wilcoxon "
            "signed-rank on the questions both scored).",
        ),
    ] = 0.05,
    benchmark: FolderBenchmarkOpt = None,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="Fail a folder without a manifest.json (written before manifests, or by "
            "hand) instead of warning that it is unbound.",
        ),
    ] = False,
) -> None:
    """Print the folder's claim card and its gates. Exit 0 when every gate passes, 1 when
    one fails (one line each, with its figure and threshold), 2 for bad input.

    Gates: nothing stored or nothing retrieved (--max-empty-retrieval); failed questions
    (--max-failed); a subset presented without its size; with --floor, the result not
    significantly above it (--alpha); the folder's parts disagree; a file changed, removed
    or added since locoscore wrote it (manifest.json; no manifest: a warning, a failure
    with --strict). Warnings (printed, never
    failing): the judge is the answer model or of its family; the judge was not audited;
    top-k reaches the whole haystack (not a memory test).

    Writes nothing: the card is read from what the folder holds."""
    from locoscore.benchmarks import benchmark_of
    from locoscore.claim.gates import Thresholds
    from locoscore.claim.verify import verify as run_verify

    thresholds = Thresholds(
        _share(empty_share, "--max-empty-retrieval"),
        _share(failed_share, "--max-failed"),
        _share(alpha, "--alpha"),
    )
    bench = benchmark_of([directory], benchmark)
    verdict = run_verify(
        directory, bench, floor=floor, ceiling=ceiling, thresholds=thresholds, strict=strict
    )
    for line in verdict.lines(directory):
        console.print(line, highlight=False, soft_wrap=True, markup=False)
    if verdict.failed:
        raise typer.Exit(EXIT_FAILED)
