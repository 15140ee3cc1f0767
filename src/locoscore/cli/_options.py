"""Options that several commands share: how predictions are read and joined, and which
benchmark (every list of benchmarks built from the registry, so help cannot drift)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from locoscore.benchmarks import BENCHMARKS, DEFAULT_BENCHMARK, ENTRY_POINT_GROUP
from locoscore.errors import InputError


def benchmark_choices() -> str:
    """Every registered benchmark, the default marked, then the third-party ways (installed
    entry points are not scanned here: the CLI starts without importlib.metadata)."""
    names = [f"{n} (default)" if n == DEFAULT_BENCHMARK else n for n in BENCHMARKS]
    return (
        f"{', '.join(names)}; or your own: python:module:NAME, or an installed "
        f"`{ENTRY_POINT_GROUP}` entry point"
    )


def benchmark_notes(option: str) -> str:
    """What each benchmark reading `option` declares of it (`Benchmark.option_help`), as
    `name: note; name: note`: help of an option only some benchmarks read."""
    notes = [
        f"{b.name}: {b.option_help[option]}" for b in BENCHMARKS.values() if option in b.option_help
    ]
    return "; ".join(notes) or "none built in"


def left_out_types() -> str:
    """The question types each benchmark's overall leaves out (`QuestionType.in_overall`),
    as `name: type, type`."""
    notes = []
    for bench in BENCHMARKS.values():
        names = [t.name for t in bench.types if not t.in_overall]
        if names:
            notes.append(f"{bench.name}: {', '.join(names)}")
    return "; ".join(notes) or "none built in"


BenchmarkOpt = Annotated[
    str,
    typer.Option("--benchmark", help=f"The benchmark: {benchmark_choices()}."),
]
FolderBenchmarkOpt = Annotated[
    str | None,
    typer.Option(
        "--benchmark",
        help=f"The benchmark (default: the one the folder records, else {DEFAULT_BENCHMARK}): "
        f"{benchmark_choices()}.",
    ),
]
PredictionsArg = Annotated[Path, typer.Argument(help="Predictions file (see --format).")]
DatasetOpt = Annotated[
    Path | None,
    typer.Option(
        "--dataset",
        help=f"The benchmark's data file or folder ({benchmark_notes('--dataset')}; another "
        "benchmark's: its fetched copy by default, else the data its module holds).",
    ),
]
FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format", help=f"The predictions file's format ({benchmark_notes('--format')})."
    ),
]
PredictionKeyOpt = Annotated[
    str | None,
    typer.Option(
        "--prediction-key",
        help=f"Which predictions of the file to read ({benchmark_notes('--prediction-key')}).",
    ),
]
StrictOpt = Annotated[
    bool,
    typer.Option(
        "--strict", help="Unmatched, duplicated or mismatched records are errors (exit 2)."
    ),
]
ErrataOpt = Annotated[
    Path | None,
    typer.Option(
        "--errata",
        help=f"The gold errata list of a benchmark that has one ({benchmark_notes('--errata')}).",
    ),
]
ReplaceOpt = Annotated[
    bool,
    typer.Option(
        "--replace",
        help="DIR holds results of other predictions: drop them (scores, summary, judge "
        "columns, reports, audit, run files) instead of refusing. The judge cache stays.",
    ),
]
LimitOpt = Annotated[
    int | None,
    typer.Option(
        "--limit",
        help="Smoke test: only N questions, a deterministic sample stratified by the "
        "benchmark's question types (proportional; see --limit-per), the same in run, judge "
        "and audit. Every number it gives is marked as a subset.",
    ),
]
LimitPerOpt = Annotated[
    str | None,
    typer.Option(
        "--limit-per",
        help="total (default): N questions in all, split across question types in "
        "proportion; category: N from every type.",
    ),
]
SeedOpt = Annotated[
    int | None, typer.Option("--seed", help="Which sample --limit draws (default 0).")
]
ShardOpt = Annotated[
    str | None,
    typer.Option(
        "--shard",
        help="I/N: only shard I (0-based) of N, whole conversations balanced by size, the same "
        "split on every machine; `locoscore merge` joins the N folders.",
    ),
]


def base_urls_option(flag: str, default: str, served: str) -> Any:
    """`--base-url`-style: one server, or several given a flag each (a pool)."""
    return typer.Option(
        [],
        flag,
        help=f"Any server speaking the provider's wire format{default}; repeated: a pool of "
        f"servers serving the model{served}.",
    )


def pool_option(flag: str, role: str) -> Any:
    """`--pool`-style: the POOL.toml serving one step's model."""
    return typer.Option(
        None,
        flag,
        help=f"POOL.toml: the [[endpoint]]s serving the {role} model (base_url, and optional "
        "model, key_env, weight, concurrency, shard); see the shards how-to.",
    )


def endpoint_pool(urls: list[str], path: Path | None, urls_flag: str, pool_flag: str) -> Any:
    """A step's pool: its POOL.toml, or its base URL given twice or more (None: neither)."""
    from locoscore.llm.endpoint_pool import load_pool, pool_of_urls

    if path is not None:
        if urls:
            raise InputError(f"give {pool_flag} or {urls_flag}, not both", field=pool_flag)
        return load_pool(path)
    return pool_of_urls(urls, urls_flag)
