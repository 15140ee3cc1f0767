"""`locoscore dataset info | fetch`."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from locoscore.benchmarks import BENCHMARKS, DEFAULT_BENCHMARK, Benchmark, KnownFile, get_benchmark
from locoscore.cli._app import command_group, console, handle_errors
from locoscore.cli._options import BenchmarkOpt, DatasetOpt
from locoscore.errors import InputError

dataset_app = command_group(
    "dataset", "Inspect a benchmark's data file or download a released one."
)


@dataset_app.command("info")
@handle_errors
def info(
    dataset: DatasetOpt = None,
    benchmark: BenchmarkOpt = DEFAULT_BENCHMARK,
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


def _fetchable() -> dict[str, tuple[Benchmark, KnownFile]]:
    """Every name `dataset fetch` takes, the default benchmark's first: each benchmark's
    released files, by the names its `fetch_names` gives them."""
    found: dict[str, tuple[Benchmark, KnownFile]] = {}
    for bench in sorted(BENCHMARKS.values(), key=lambda b: b.name != DEFAULT_BENCHMARK):
        for name, known in bench.fetch_names.items():
            found.setdefault(name, (bench, known))  # a name two declare: the first's
    return found


_FETCHABLE = _fetchable()


def _benchmarks() -> list[Benchmark]:
    """The benchmarks with files to fetch, the default first."""
    return list(dict.fromkeys(b for b, _ in _FETCHABLE.values()))


def _listed(bench: Benchmark) -> dict[str, list[str]]:
    """A benchmark's fetch names, each file once (its first name), with its aliases."""
    names: dict[str, list[str]] = {}
    firsts: dict[int, str] = {}
    for name, known in bench.fetch_names.items():
        first = firsts.setdefault(id(known), name)
        names.setdefault(first, []).extend([] if first == name else [name])
    return names


def _fetch_help() -> str:
    """Every name `fetch` takes, from each benchmark's `fetch_names` (with their notes)."""
    parts = []
    for bench in _benchmarks():
        files = []
        for name, aliases in _listed(bench).items():
            known = bench.fetch_names[name]
            said = [known.filename + (f", {known.note}" if known.note else "")]
            said += [f"also {a!r}" for a in aliases]
            files.append(f"{name} ({'; '.join(said)})")
        parts.append(f"{', '.join(files)} ({bench.name})")
    return f"A released file, at a pinned revision: {'; '.join(parts)}."


def _unknown(what: str) -> InputError:
    """The names of the default benchmark's files first, then every other benchmark's."""
    ours = list(_listed(BENCHMARKS[DEFAULT_BENCHMARK]))
    others = ", ".join(n for n, (b, _) in _FETCHABLE.items() if b.name != DEFAULT_BENCHMARK)
    return InputError(
        f"expected one of {', '.join(ours)}, got {what!r} (benchmark files: {others})",
        field="WHAT",
    )


@dataset_app.command("fetch")
@handle_errors
def fetch(
    what: str = typer.Argument(
        next(iter(_FETCHABLE), ""),
        help=_fetch_help(),
        metavar="[" + "|".join(n for b in _benchmarks() for n in _listed(b)) + "]",
    ),
    url: str | None = typer.Option(None, help="Where to download from (default: the pinned URL)."),
    dest: Path | None = typer.Option(None, help="Destination (default: the user cache dir)."),
) -> None:
    """Download a benchmark's released data file (or another file it declares: WHAT) into
    the user cache, checked against its pinned sha256.

    Writes into the user cache folder (or --dest): the file or folder WHAT names."""
    if what not in _FETCHABLE:
        raise _unknown(what)
    bench, known = _FETCHABLE[what]
    path = bench.fetch(what, url, dest)
    console.print(f"saved {path} (sha256 {known.sha256})", highlight=False)
