"""`locoscore probe URL | --system NAME`: check a memory system's integration before a run."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from locoscore._io import write_json_atomic
from locoscore.benchmarks import BENCHMARKS, DEFAULT_BENCHMARK, get_benchmark
from locoscore.cli._app import EXIT_FAILED, app, console, handle_errors
from locoscore.cli._options import benchmark_choices
from locoscore.errors import InputError
from locoscore.systems.base import MemorySystem
from locoscore.systems.context import SystemContext
from locoscore.systems.options import parse_option_pairs
from locoscore.systems.probe import (
    ALL_CHECKS,
    DEFAULT_SEARCHABLE_DEADLINE_S,
    QUICK_CHECKS,
    check_names,
    run_probe,
)
from locoscore.systems.probe_report import ProbeReport
from locoscore.systems.registry import make_system

_STATUS = {
    "passed": "[green]passed[/]",
    "failed": "[red]FAILED[/]",
    "skipped": "[dim]skipped[/]",
}


# The benchmarks whose runs make probe checks beyond the quick ones (help lists them).
_WITH_CHECKS = [b for b in BENCHMARKS.values() if b.probe_checks]


def _system_spec(
    url: str | None, system: str | None, pairs: list[str]
) -> tuple[str, dict[str, str]]:
    options = parse_option_pairs(pairs)
    if url is not None and system is not None:
        raise InputError("probe: give a server URL or --system NAME, not both")
    if url is not None:
        if "url" in options:
            raise InputError("--system-option url: the URL is already given as the argument")
        return "http", {"url": url, **options}
    if system is None:
        raise InputError("probe: give a server URL or --system NAME (see locoscore probe --help)")
    return system, options


def _checks(quick: bool, only: list[str]) -> tuple[str, ...]:
    if quick and only:
        raise InputError("probe: --quick and --check cannot be combined")
    if quick:
        return QUICK_CHECKS
    return check_names(only) if only else ALL_CHECKS


async def _probe(system: MemorySystem, checks: tuple[str, ...], deadline_s: float) -> ProbeReport:
    await system.start()
    try:
        return await run_probe(system, checks, searchable_deadline_s=deadline_s)
    finally:
        await system.aclose()


def _print_report(report: ProbeReport, url: str | None) -> None:
    counts = {status: 0 for status in _STATUS}
    for check in report.checks:
        counts[check.status] += 1
    summary = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
    subject = report.system if url is None else f"{report.system} {url}"
    table = Table(title=escape(f"probe of {subject}: {summary}"))
    table.add_column("check")
    table.add_column("result")
    table.add_column("s", justify="right")
    table.add_column("evidence", overflow="fold")
    for check in report.checks:
        table.add_row(
            check.name, _STATUS[check.status], f"{check.seconds:.3f}", escape(check.evidence)
        )
    console.print(table)
    if report.time_to_searchable_s is not None:
        console.print(f"time to searchable: {report.time_to_searchable_s:.3f} s", highlight=False)
    if report.ok:
        console.print("[green]all checks passed[/]")
    else:
        names = ", ".join(check.name for check in report.failures)
        console.print(f"[red]failed: {names}[/]", highlight=False)


@app.command("probe")
@handle_errors
def probe(
    url: Annotated[
        str | None,
        typer.Argument(
            help="A memory server speaking the HTTP contract (same as --system http "
            "--system-option url=URL)."
        ),
    ] = None,
    system: Annotated[
        str | None,
        typer.Option(
            "--system",
            help="Probe a system in this process instead: a built-in name or python:module:Class.",
        ),
    ] = None,
    system_option: Annotated[
        list[str] | None,
        typer.Option("--system-option", help="KEY=VALUE option of the system (repeatable)."),
    ] = None,
    quick: Annotated[
        bool,
        typer.Option(
            "--quick", help=f"Only the checks locoscore run makes first: {', '.join(QUICK_CHECKS)}."
        ),
    ] = False,
    check: Annotated[
        list[str] | None,
        typer.Option("--check", help=f"Run only this check (repeatable): {', '.join(ALL_CHECKS)}."),
    ] = None,
    searchable_deadline: Annotated[
        float,
        typer.Option(
            "--searchable-deadline",
            help="Seconds to wait for a just-added fact to become searchable.",
            min=0.1,
        ),
    ] = DEFAULT_SEARCHABLE_DEADLINE_S,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the results to this JSON file.")
    ] = None,
    benchmark: Annotated[
        str,
        typer.Option(
            "--benchmark",
            help="With --quick: also the checks a run on this benchmark makes ("
            + "; ".join(f"{b.name}: {', '.join(b.probe_checks)}" for b in _WITH_CHECKS)
            + f"). The benchmark: {benchmark_choices()}.",
        ),
    ] = DEFAULT_BENCHMARK,
) -> None:
    """Check that a memory system keeps session dates and image captions, isolates
    conversations, empties on reset and honours top-k, on a synthetic conversation pair it
    generates. Prints each check with its evidence; exits 1 when a check fails.

    Writes nothing but --json FILE (the system's state goes to a temporary folder)."""
    name, options = _system_spec(url, system, system_option or [])
    checks = _checks(quick, check or [])
    extra = get_benchmark(benchmark).probe_checks
    if quick:
        checks = check_names((*checks, *extra))
    if json_out is not None and json_out.is_dir():
        raise InputError(f"--json {json_out}: is a folder, expected a file path")
    # A throwaway state folder: probing leaves nothing behind.
    with tempfile.TemporaryDirectory(prefix="locoscore-probe-") as state_dir:
        instance = make_system(name, options, SystemContext(Path(state_dir)))
        if instance.reference is not None:
            raise InputError(
                f"--system {name}: the {instance.reference}, a reference system that stores "
                "nothing of its own: the probe does not apply (a run records it as not run)"
            )
        report = asyncio.run(_probe(instance, checks, searchable_deadline))
    _print_report(report, url)
    if json_out is not None:
        write_json_atomic(json_out, report.to_json())
        console.print(f"wrote {json_out}", highlight=False)
    if not report.ok:
        raise typer.Exit(EXIT_FAILED)
