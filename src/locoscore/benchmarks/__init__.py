"""Benchmarks as registered objects, like the lexical protocols: look one up by name.

`locomo` is the default everywhere (`--benchmark`); the LongMemEval object registers beside
it. Nothing outside this package tests a benchmark's name.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from locoscore.benchmarks.base import Benchmark, KnownFile, QuestionType
from locoscore.benchmarks.beam import BEAM, BEAM_FULL
from locoscore.benchmarks.locomo import LOCOMO
from locoscore.benchmarks.longmemeval import LONGMEMEVAL
from locoscore.errors import InputError
from locoscore.results.layout import RUN_JSON, SUMMARY

DEFAULT_BENCHMARK = "locomo"

BENCHMARKS: dict[str, Benchmark] = {b.name: b for b in (LOCOMO, LONGMEMEVAL, BEAM, BEAM_FULL)}


def get_benchmark(name: str | None) -> Benchmark:
    """The benchmark called `name` (None: the default); unknown names are bad input."""
    key = (name or DEFAULT_BENCHMARK).strip().lower()
    try:
        return BENCHMARKS[key]
    except KeyError:
        known = ", ".join(BENCHMARKS)
        raise InputError(
            f"unknown benchmark {name!r} (known: {known})", field="--benchmark"
        ) from None


def recorded_benchmark(directory: Path) -> str:
    """The benchmark a results folder records (summary.json, else run.json; else LoCoMo,
    whose folders predate the field)."""
    for name in (SUMMARY, RUN_JSON):
        path = directory / name
        if path.is_file():
            try:
                value = json.loads(path.read_text(encoding="utf-8")).get("benchmark")
            except (ValueError, AttributeError):
                continue  # the command reading the folder reports a bad file itself
            if isinstance(value, str):
                return value
    return DEFAULT_BENCHMARK


def benchmark_of(directories: Sequence[Path], requested: str | None) -> Benchmark:
    """The benchmark of the folders a command reads: they must agree with each other and
    with `--benchmark` when it is given."""
    recorded = {d: recorded_benchmark(d) for d in directories}
    names = set(recorded.values())
    if len(names) > 1:
        detail = ", ".join(f"{d}: {n}" for d, n in recorded.items())
        raise InputError(f"the folders hold results of different benchmarks ({detail})")
    name = names.pop() if names else DEFAULT_BENCHMARK
    if requested is not None and get_benchmark(requested).name != name:
        folder = next(iter(recorded))
        raise InputError(
            f"holds {name} results, not {requested}", file=str(folder), field="--benchmark"
        )
    return get_benchmark(name)


__all__ = [
    "BENCHMARKS",
    "DEFAULT_BENCHMARK",
    "Benchmark",
    "KnownFile",
    "QuestionType",
    "get_benchmark",
]
