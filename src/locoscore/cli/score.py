"""`locoscore score`: lexical metrics for a predictions file."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from locoscore.benchmarks import get_benchmark
from locoscore.cli._app import app, console, handle_errors, report_dropped
from locoscore.cli._options import (
    BenchmarkOpt,
    DatasetOpt,
    ErrataOpt,
    FormatOpt,
    PredictionKeyOpt,
    PredictionsArg,
    ReplaceOpt,
    StrictOpt,
)
from locoscore.data.errata import errata_for
from locoscore.data.load import load_predictions
from locoscore.errors import InputError
from locoscore.results.folder import check_out_dir
from locoscore.results.identity import claim_folder
from locoscore.results.layout import REPORT_FILES, SCORES, SUMMARY
from locoscore.run.store import forget_run


def _parse_protocols(value: str) -> list[str]:
    from locoscore.scoring.protocols import PROTOCOLS

    names = [name.strip() for name in value.split(",") if name.strip()]
    for name in names:
        if name not in PROTOCOLS:
            raise InputError(
                f"unknown protocol {name!r} (known: {', '.join(PROTOCOLS)})", field="--protocols"
            )
    if not names:
        raise InputError("no protocol given", field="--protocols")
    return names


@app.command("score")
@handle_errors
def score(
    predictions: PredictionsArg,
    dataset: DatasetOpt = None,
    fmt: FormatOpt = None,
    prediction_key: PredictionKeyOpt = None,
    strict: StrictOpt = False,
    out: Path = typer.Option(Path("locoscore-out"), "--out", help="Output folder."),
    protocols: str = typer.Option(
        "locomo,mem0,spec", "--protocols", help="Comma-separated: locomo, mem0, spec."
    ),
    errata: ErrataOpt = None,
    benchmark: BenchmarkOpt = "locomo",
    replace: ReplaceOpt = False,
) -> None:
    """Score predictions with exact lexical protocols.

    Writes into DIR: scores.jsonl, summary.json, report.md, report.html, scores.csv."""
    # imported here, not at the top: `locoscore --help` stays free of NumPy and NLTK
    from locoscore.report.build import build_reports
    from locoscore.report.terminal import (
        lexical_signatures,
        lexical_table,
        print_signatures,
        verified_gold_line,
    )
    from locoscore.scoring.folder import score_into_folder

    get_benchmark(benchmark).require("score")
    names = _parse_protocols(protocols)
    check_out_dir(out)
    loaded = load_predictions(
        predictions, fmt, prediction_key=prediction_key, dataset=dataset, strict=strict
    )
    gold_errata = errata_for(errata, loaded.dataset)  # checked before anything is written
    report_dropped(
        claim_folder(out, loaded.identity(), replace=replace, forget_run=forget_run), out
    )
    summary = score_into_folder(loaded, out, names)
    # one report format everywhere: the full report (`locoscore report` rebuilds the same)
    built = build_reports(out, errata=gold_errata)
    console.print(lexical_table(summary["lexical"]), highlight=False)
    print_signatures(console, lexical_signatures(summary["lexical"]))
    if (line := verified_gold_line(built.analysis)) is not None:
        console.print(line, highlight=False)
    console.print(
        f"wrote {escape(str(out))}/{', '.join((SCORES, SUMMARY, *REPORT_FILES))}",
        highlight=False,
    )
