"""`locoscore verify DIR [--floor DIR] [--ceiling DIR]`: can this number be believed?"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from locoscore.benchmarks.rejudge import DEFAULT_MIN_AGREEMENT, DEFAULT_REJUDGE_SEED
from locoscore.cli._app import EXIT_FAILED, app, console, handle_errors
from locoscore.cli._options import DatasetOpt, FolderBenchmarkOpt
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
            help="Results folder of the floor: a `--system no-memory` run on the same "
            "benchmark, data file and questions, with the same answer step (provider, model, "
            "prompt) and judge: the result must be significantly above it.",
            metavar="DIR",
        ),
    ] = None,
    ceiling: Annotated[
        Path | None,
        typer.Option(
            "--ceiling",
            help="Results folder of the ceiling: a `--system gold-evidence` run on the same "
            "benchmark, data file and questions, with the same answer step and judge: shown "
            "with where the result sits.",
            metavar="DIR",
        ),
    ] = None,
    empty_share: Annotated[
        float,
        typer.Option(
            "--max-empty-retrieval",
            help="Fail when nothing was retrieved for more than this share of the questions "
            "searched (0: any question without an item fails), or the system reports 0 items "
            "stored.",
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
            "signed-rank on the questions both scored: exact up to 25 non-zero differences, "
            "the normal approximation above).",
        ),
    ] = 0.05,
    dataset: DatasetOpt = None,
    allow_fake: Annotated[
        bool,
        typer.Option(
            "--allow-fake",
            help="Let a folder answered or judged by locoscore's fake provider pass (tests, "
            "examples).",
        ),
    ] = False,
    allow_self_judge: Annotated[
        bool,
        typer.Option(
            "--allow-self-judge",
            help="Let a judge that is the answer model pass (a reproduction of a protocol "
            "that self-judges); the card says so.",
        ),
    ] = False,
    benchmark: FolderBenchmarkOpt = None,
    rejudge: Annotated[
        int | None,
        typer.Option(
            "--rejudge",
            help="Judge a seeded sample of N of the folder's questions again, with the judge "
            "it records (provider, endpoint, model, prompt), into a temporary folder (real "
            "calls, no cache): fail when fewer verdicts agree with the stored ones than "
            "--min-agreement. --dry-run prints the cost.",
            metavar="N",
            min=1,
        ),
    ] = None,
    min_agreement: Annotated[
        float,
        typer.Option(
            "--min-agreement",
            help="With --rejudge: the least share of re-judged verdicts that must agree with "
            "the stored ones (a share 0-1; default 0.9).",
        ),
    ] = DEFAULT_MIN_AGREEMENT,
    rejudge_seed: Annotated[
        int,
        typer.Option("--rejudge-seed", help="With --rejudge: the seed of the sample."),
    ] = DEFAULT_REJUDGE_SEED,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="With --rejudge: print its calls and cost, judge nothing."),
    ] = False,
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

    Every number is re-derived from the folder's records (answers, judgments, stored items)
    and its data file with the benchmark's own scoring, never read back from summary.json.
    Gates: nothing stored or nothing retrieved (--max-empty-retrieval); failed questions
    (--max-failed); a subset presented without its size; with --floor, the result not
    significantly above it (--alpha); a number that is not its recomputation; no headline;
    no data file to re-derive from; a gold-evidence run (a reference ceiling); the fake
    provider (--allow-fake); a judge that is the answer model (--allow-self-judge); a file
    changed, removed or added since locoscore wrote it (manifest.json; no manifest: a
    warning, a failure with --strict). Warnings (printed, never failing): the judge is of
    the answer model's family; the judge was not audited; top-k reaches the whole haystack
    (not a memory test).

    The data file is the one the folder records, found by its sha256; --dataset gives it
    when the recorded path is not at hand (it must have the recorded sha256). Without a
    file of that sha256 nothing can be re-derived and verify fails ("cannot check the
    question set: pass --dataset").

    Writes nothing to the folder (docs/explanation/gates.md)."""
    from locoscore.benchmarks import benchmark_of
    from locoscore.claim.gates import Permissions, Thresholds
    from locoscore.claim.verify import verify as run_verify

    thresholds = Thresholds(
        _share(empty_share, "--max-empty-retrieval"),
        _share(failed_share, "--max-failed"),
        _share(alpha, "--alpha"),
    )
    if dry_run and rejudge is None:
        raise InputError("goes with --rejudge N", field="--dry-run")
    _share(min_agreement, "--min-agreement")
    bench = benchmark_of([directory], benchmark)
    verdict = run_verify(
        directory,
        bench,
        floor=floor,
        ceiling=ceiling,
        thresholds=thresholds,
        dataset=dataset,
        permissions=Permissions(fake=allow_fake, self_judge=allow_self_judge),
        strict=strict,
    )
    if rejudge is not None:
        from locoscore.benchmarks.rejudge import rejudge_gate
        from locoscore.cli._terminal import terminal

        verdict.gates.append(
            rejudge_gate(
                directory, bench, terminal(), n=rejudge, seed=rejudge_seed,
                min_agreement=min_agreement, dry_run=dry_run,
            )
        )  # fmt: skip
    for line in verdict.lines(directory):
        console.print(line, highlight=False, soft_wrap=True, markup=False)
    if verdict.failed:
        raise typer.Exit(EXIT_FAILED)
