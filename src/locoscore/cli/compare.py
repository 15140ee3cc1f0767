"""`locoscore compare A B [C ...]`: paired differences, intervals and tests on shared questions;
with more than two folders, each against the first, Holm-corrected."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from locoscore.benchmarks import benchmark_of
from locoscore.benchmarks.calls import CompareCall
from locoscore.cli._app import EXIT_FAILED, app, console, handle_errors
from locoscore.cli._options import DatasetOpt, ErrataOpt, FolderBenchmarkOpt
from locoscore.cli._terminal import terminal
from locoscore.errors import InputError


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
    if len(folders) < 2:
        raise InputError("compare needs at least two results folders (A B [C ...])")
    bench = benchmark_of(folders, benchmark)
    bench.require("compare")
    from locoscore.data.selection import refuse_mismatch

    # folders over other questions (another sample, --conversations, judge --limit) are not
    # compared on the questions they happen to share: refused, naming both selections
    refuse_mismatch(folders, [f"{chr(ord('A') + i)} ({f})" for i, f in enumerate(folders)])
    failed = bench.compare_command(
        CompareCall(folders, out, verified_gold, errata, dataset), terminal()
    )
    from locoscore.claim.verify import compare_lines

    for line in compare_lines(folders, bench):
        console.print(line, highlight=False, soft_wrap=True, markup=False)
    if failed:
        raise typer.Exit(EXIT_FAILED)
