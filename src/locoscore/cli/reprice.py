"""`locoscore reprice`: recompute a results folder's stored costs with another price table."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from locoscore.cli._app import app, console, handle_errors
from locoscore.results.manifest import bound


@app.command("reprice")
@handle_errors
def reprice(
    directory: Annotated[Path, typer.Argument(help="Results folder (run, score or judge).")],
    prices: Annotated[
        Path | None,
        typer.Option(
            "--prices",
            help='JSON price table {"model": {"input": USD/Mtok, "output": ..., '
            '"cache_write": ..., "cache_read": ...}}; default: the built-in table.',
        ),
    ] = None,
) -> None:
    """Recompute every stored cost from the recorded token counts and a price table, and
    rebuild the reports. Only cost fields change (and `price_table`, which names the table);
    verdicts, answers, scores and signatures stay byte-identical. A system's own ingestion
    cost is left as it reported it.

    Writes into DIR: the cost fields of run.json and summary.json, then report.md,
    report.html and scores.csv as `locoscore report` does."""
    from locoscore.benchmarks import benchmark_of
    from locoscore.llm.cost import PriceTable
    from locoscore.results.reprice import reprice_folder

    table = PriceTable.load(prices)
    if not directory.is_dir():
        from locoscore.errors import InputError

        raise InputError("not a results folder", file=str(directory))
    with bound(directory, "reprice") as binding:
        binding.read("prices", prices)
        for line in reprice_folder(directory, table):
            console.print(f"repriced with the {table.source} table: {line}", highlight=False)
        bench = benchmark_of([directory], None)
        for path in bench.report(directory):
            console.print(f"wrote {path}", highlight=False)
