"""`locoscore dataset info | fetch`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import typer
from rich.table import Table

from locoscore.benchmarks import BENCHMARKS, get_benchmark
from locoscore.cli._app import app, console, handle_errors
from locoscore.cli._options import BenchmarkOpt, DatasetOpt
from locoscore.data.dataset import LOCOMO_SHA256, LOCOMO_URL, fetch_dataset
from locoscore.data.errata import ERRATA_SHA256, ERRATA_URL, fetch_errata
from locoscore.data.probes import PROBE_SOURCES, PROBES_BASE_URL, fetch_probes
from locoscore.errors import InputError

dataset_app = typer.Typer(
    help="Inspect a benchmark's data file or download a released one.", no_args_is_help=True
)
app.add_typer(dataset_app, name="dataset")


@dataset_app.command("info")
@handle_errors
def info(
    dataset: DatasetOpt = None,
    benchmark: BenchmarkOpt = "locomo",
) -> None:
    """Print the dataset's checksum and per-type question counts.

    Writes nothing."""
    bench = get_benchmark(benchmark)
    data = bench.load(dataset)
    console.print(f"path     {data.path}")
    known = bench.known_file(data.sha256)
    status = f"[green]matches {known.filename}[/]" if known else "[yellow]differs[/]"
    console.print(f"sha256   {data.sha256} ({status})", highlight=False)
    table = Table(title="Questions per type")
    table.add_column("id", justify="right")
    table.add_column("type")
    table.add_column("count", justify="right")
    counts = bench.type_counts(data)
    for qtype in bench.types:
        table.add_row(str(qtype.id), qtype.name, str(counts.get(qtype.id, 0)))
    total = sum(counts.values())
    table.add_row("", "total", str(total))
    excluded = [t for t in bench.types if not t.in_overall]
    if excluded:
        names = ", ".join(t.name for t in excluded)
        kept = total - sum(counts.get(t.id, 0) for t in excluded)
        table.add_row("", f"total without {names}", str(kept))
    console.print(table)


@dataclass(frozen=True)
class _Fetchable:
    url: str
    sha256: str
    fetch: Callable[[str, Path | None], Path]


def _fetch_probes(url: str, dest: Path | None) -> Path:
    paths = fetch_probes(url, dest)
    return paths[0].parent


# What `dataset fetch` can download; each is sha256-pinned and saved in the user cache.
_FETCHABLE = {
    "dataset": _Fetchable(LOCOMO_URL, LOCOMO_SHA256, fetch_dataset),
    "errata": _Fetchable(ERRATA_URL, ERRATA_SHA256, fetch_errata),
    "probes": _Fetchable(
        PROBES_BASE_URL, ", ".join(s.sha256 for s in PROBE_SOURCES), _fetch_probes
    ),
}
_FETCHABLE["locomo"] = _FETCHABLE["dataset"]
# Each benchmark's released files, by the names its `fetch_names` gives them.
_BENCHMARK_FILES = [(name, bench) for bench in BENCHMARKS.values() for name in bench.fetch_names]
for _name, _bench in _BENCHMARK_FILES:
    _known = _bench.fetch_names[_name]
    _FETCHABLE[_name] = _Fetchable(
        _known.url or "",
        _known.sha256,
        lambda url, dest, name=_name, bench=_bench: bench.fetch(name, url, dest),  # type: ignore[misc]
    )


def _fetch_help() -> str:
    """Every name `fetch` takes, each benchmark's files built from its `fetch_names`."""
    by_benchmark: dict[str, list[str]] = {}
    for name, bench in _BENCHMARK_FILES:
        by_benchmark.setdefault(bench.name, []).append(name)
    files = "; ".join(f"{', '.join(names)} ({b})" for b, names in by_benchmark.items())
    return (
        "dataset (locomo10.json; also 'locomo'), errata (the audited list of wrong gold "
        "answers) or probes (the judge-audit probe sets), from dial481/locomo-audit; a "
        f"benchmark's released files, at a pinned revision: {files}."
    )


@dataset_app.command("fetch")
@handle_errors
def fetch(
    what: str = typer.Argument(
        "dataset",
        help=_fetch_help(),
        metavar="[" + "|".join(n for n in _FETCHABLE if n != "locomo") + "]",
    ),
    url: str | None = typer.Option(None, help="Where to download from (default: the pinned URL)."),
    dest: Path | None = typer.Option(None, help="Destination (default: the user cache dir)."),
) -> None:
    """Download a released data file (LoCoMo's locomo10.json, its gold errata and judge probe
    sets, or another benchmark's release) into the user cache, checked against its pinned
    sha256.

    Writes into the user cache folder (or --dest): locomo10.json, locomo-audit-errors.json
    (errata), judge-probes/specific-but-wrong.json and vague-but-topical.json (probes), or the
    benchmark's file or folder."""
    item = _FETCHABLE.get(what)
    if item is None:
        files = ", ".join(name for name, _ in _BENCHMARK_FILES)
        raise InputError(
            f"expected one of dataset, errata, probes, got {what!r} (benchmark files: {files})",
            field="WHAT",
        )
    path = item.fetch(url or item.url, dest)
    console.print(f"saved {path} (sha256 {item.sha256})", highlight=False)
