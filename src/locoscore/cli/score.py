"""`locoscore score`: lexical metrics for a predictions file."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.markup import escape

from locoscore._version import __version__
from locoscore.cli._app import app, console, handle_errors
from locoscore.cli._options import (
    DatasetOpt,
    ErrataOpt,
    FormatOpt,
    PredictionKeyOpt,
    PredictionsArg,
    StrictOpt,
)
from locoscore.data.errata import errata_for
from locoscore.data.load import load_predictions
from locoscore.errors import InputError
from locoscore.report.build import build_reports
from locoscore.report.terminal import lexical_table, verified_gold_line
from locoscore.results_dir import SCORES, SUMMARY, write_results
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


def _check_out_dir(out: Path) -> None:
    """Refuse an --out that cannot take the results before any work is done: a file in the
    way, or earlier results there that cannot be read (new rows are merged into them)."""
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a folder", file=str(out), field="--out")
    for name in (SCORES, SUMMARY):
        path = out / name
        if not path.exists():
            continue
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read earlier results ({exc})", file=str(path)) from None
        documents = enumerate(lines, 1) if name == SCORES else [(None, "\n".join(lines))]
        for number, text in documents:
            if number is not None and not text.strip():
                continue
            where = None if number is None else f"line {number}"
            try:
                value = json.loads(text)
            except (json.JSONDecodeError, RecursionError):
                raise InputError(
                    "earlier results are not valid JSON; remove the file or choose another --out",
                    file=str(path),
                    record=where,
                ) from None
            if not isinstance(value, dict):
                raise InputError(
                    "earlier results: expected a JSON object; remove the file or choose "
                    "another --out",
                    file=str(path),
                    record=where,
                )


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
) -> None:
    """Score predictions with exact lexical protocols; write scores.jsonl, summary.json,
    report.md."""
    names = _parse_protocols(protocols)
    _check_out_dir(out)
    loaded = load_predictions(
        predictions, fmt, prediction_key=prediction_key, dataset=dataset, strict=strict
    )
    gold_errata = errata_for(errata, loaded.dataset)  # checked before anything is written
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
    built = build_reports(out, errata=gold_errata)
    console.print(lexical_table(summary["lexical"]), highlight=False)
    if (line := verified_gold_line(built.analysis)) is not None:
        console.print(line, highlight=False)
    console.print(
        f"wrote {escape(str(out))}/scores.jsonl, summary.json, report.md, report.html, scores.csv",
        highlight=False,
    )
