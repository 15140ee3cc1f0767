"""`locoscore score`: lexical metrics for a predictions file."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from locoscore._version import __version__
from locoscore.categories import CATEGORY_NAMES, LOCOMO_COLUMN_ORDER
from locoscore.cli._app import app, console, handle_errors
from locoscore.data.dataset import load_dataset, resolve_dataset_path
from locoscore.data.join import join_to_dataset
from locoscore.data.readers import FORMATS, read_predictions
from locoscore.errors import InputError
from locoscore.report.plain import format_plain_report, lexical_table_rows
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
    read = read_predictions(predictions, fmt, prediction_key=prediction_key)
    records = read.records
    dataset_path = resolve_dataset_path(dataset)
    dataset_info = None
    join_info = None
    if dataset_path is not None:
        ds = load_dataset(dataset_path)
        records, report = join_to_dataset(records, ds, strict=strict)
        join_info = report.to_dict()
        dataset_info = {"path": str(ds.path), "sha256": ds.sha256, "checksum_ok": ds.checksum_ok}
        if report.unmatched or report.duplicates or report.gold_mismatches:
            warnings.warn(
                f"join: {len(report.unmatched)} unmatched, {len(report.duplicates)} duplicated, "
                f"{len(report.gold_mismatches)} gold mismatches (see summary.json 'join')",
                stacklevel=1,
            )
    selected = [get_protocol(name) for name in names]
    rows = score_records(records, selected)
    sections = {
        "locoscore_version": __version__,
        "input": {
            "path": str(read.path),
            "sha256": read.sha256,
            "format": read.format,
            "records": len(records),
        },
        "dataset": dataset_info,
        "join": join_info,
        "lexical": lexical_summary(rows, selected),
    }
    owned = tuple(p.column(m) for p in PROTOCOLS.values() for m in p.metrics)
    summary = write_results(
        out,
        rows,
        sections,
        owned_prefixes=owned,
        extra_files=lambda s: {"report.md": format_plain_report(s)},
    )
    _print_table(summary)
    console.print(f"wrote {out}/scores.jsonl, summary.json, report.md")


def _print_table(summary: dict[str, Any]) -> None:
    table = Table(
        title="locoscore: lexical scores (x100)",
        caption="overall: each protocol's own convention (locomo, spec include adversarial; "
        "mem0 excludes it)",
    )
    table.add_column("metric")
    for cid in LOCOMO_COLUMN_ORDER:
        # short headers keep the table readable on an 80-column terminal
        table.add_column(CATEGORY_NAMES[cid].split("-")[0], justify="right")
    table.add_column("overall", justify="right")
    signatures: list[str] = []
    for label, signature, cells in lexical_table_rows(summary, with_counts=False):
        table.add_row(label.replace(" (", " ").rstrip(")"), *cells)
        if signature not in signatures:
            signatures.append(signature)
    first = next(iter(summary["lexical"].values()))["metrics"]["f1"]
    counts = [
        str(first["by_category"].get(str(c), {}).get("count", 0)) for c in LOCOMO_COLUMN_ORDER
    ]
    table.add_row("[dim]questions[/]", *[f"[dim]{c}[/]" for c in counts], "")
    console.print(table)
    for signature in signatures:
        console.print(f"[dim]{signature}[/]", highlight=False)
