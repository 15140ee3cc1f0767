"""Benchmarks as registered objects, like the lexical protocols: look one up by name.

`locomo` is the default everywhere (`--benchmark`); the LongMemEval object registers beside
it. Nothing outside this package tests a benchmark's name.
"""

from __future__ import annotations

from locoscore.benchmarks.base import Benchmark, KnownFile, QuestionType
from locoscore.benchmarks.beam import BEAM, BEAM_FULL
from locoscore.benchmarks.locomo import LOCOMO
from locoscore.benchmarks.longmemeval import LONGMEMEVAL
from locoscore.errors import InputError

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


__all__ = [
    "BENCHMARKS",
    "DEFAULT_BENCHMARK",
    "Benchmark",
    "KnownFile",
    "QuestionType",
    "get_benchmark",
]
