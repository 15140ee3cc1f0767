"""`locoscore score`: lexical metrics for a predictions file."""

from __future__ import annotations

from pathlib import Path

import typer

from locoscore.benchmarks import DEFAULT_BENCHMARK, get_benchmark
from locoscore.benchmarks.calls import ScoreCall
from locoscore.cli._app import EXIT_FAILED, app, handle_errors
from locoscore.cli._options import (
    BenchmarkOpt,
    DatasetOpt,
    ErrataOpt,
    FormatOpt,
    PredictionKeyOpt,
    PredictionsArg,
    ReplaceOpt,
    StrictOpt,
    benchmark_notes,
)
from locoscore.cli._terminal import terminal
from locoscore.results.manifest import bound


@app.command("score")
@handle_errors
def score(
    predictions: PredictionsArg,
    dataset: DatasetOpt = None,
    fmt: FormatOpt = None,
    prediction_key: PredictionKeyOpt = None,
    strict: StrictOpt = False,
    out: Path = typer.Option(Path("locoscore-out"), "--out", help="Output folder."),
    protocols: str | None = typer.Option(
        None,
        "--protocols",
        help=f"Comma-separated, of the benchmark's ({benchmark_notes('--protocols')}); "
        "default: all of them.",
    ),
    errata: ErrataOpt = None,
    benchmark: BenchmarkOpt = DEFAULT_BENCHMARK,
    replace: ReplaceOpt = False,
) -> None:
    """Score predictions with exact lexical protocols.

    Writes into DIR: scores.jsonl, summary.json, report.md, report.html, scores.csv."""
    bench = get_benchmark(benchmark)
    bench.require("score")
    call = ScoreCall(
        predictions, dataset, fmt, prediction_key, strict, out, protocols, errata, replace
    )
    with bound(out, "score") as binding:
        binding.read("predictions", predictions)
        binding.read("dataset", dataset)
        binding.read("errata", errata)
        failed = bench.score_command(call, terminal())
    if failed:
        raise typer.Exit(EXIT_FAILED)
