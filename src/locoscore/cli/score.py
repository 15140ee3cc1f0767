"""`locoscore score`: lexical metrics for a predictions file."""

from __future__ import annotations

from pathlib import Path

import typer

from locoscore._version import __version__
from locoscore.cli._app import app, console, handle_errors
from locoscore.data.load import load_predictions
from locoscore.data.readers import FORMATS
from locoscore.errors import InputError
from locoscore.report.build import build_reports
from locoscore.report.terminal import lexical_table
from locoscore.results_dir import write_results
from locoscore.scoring.protocols import PROTOCOLS, get_protocol
from locoscore.scoring.run import lexical_summary, score_records


def _parse_protocols(value: str) -> list[str]:
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
    predictions: Path = typer.Argument(..., help="Predictions file (see --format)."),
    dataset: Path | None = typer.Option(
        None, "--dataset", help="locomo10.json to join against (default: $LOCOSCORE_DATASET)."
    ),
    fmt: str | None = typer.Option(
        None, "--format", help=f"One of {', '.join(FORMATS)}; auto-detected when omitted."
    ),
    prediction_key: str | None = typer.Option(
        None, "--prediction-key", help="locomo format: use `<KEY>_prediction` fields."
    ),
    out: Path = typer.Option(Path("locoscore-out"), "--out", help="Output folder."),
    protocols: str = typer.Option(
        "locomo,mem0,spec", "--protocols", help="Comma-separated: locomo, mem0, spec."
    ),
    strict: bool = typer.Option(
        False, "--strict", help="Unmatched, duplicated or gold-mismatched records are errors."
    ),
) -> None:
    """Score predictions with exact lexical protocols; write scores.jsonl, summary.json,
    report.md."""
    names = _parse_protocols(protocols)
    loaded = load_predictions(
        predictions, fmt, prediction_key=prediction_key, dataset=dataset, strict=strict
    )
    selected = [get_protocol(name) for name in names]
    rows = score_records(loaded.records, selected)
    sections = {
        "locoscore_version": __version__,
        **loaded.provenance(),
        "lexical": lexical_summary(rows, selected),
    }
    owned = tuple(p.column(m) for p in PROTOCOLS.values() for m in p.metrics)
    summary = write_results(out, rows, sections, owned_prefixes=owned)
    # one report format everywhere: the full report (`locoscore report` rebuilds the same)
    build_reports(out)
    console.print(lexical_table(summary["lexical"]), highlight=False)
    console.print(
        f"wrote {out}/scores.jsonl, summary.json, report.md, report.html, scores.csv",
        highlight=False,
    )
