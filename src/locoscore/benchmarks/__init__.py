"""Benchmarks as registered objects, like the lexical protocols: look one up by name.

`locomo` is the default everywhere (`--benchmark`); LongMemEval and BEAM register beside it.
Third-party benchmarks need no fork: `--benchmark python:module:NAME` (a `Benchmark`
instance in the user's module, the current directory importable, as `--system
python:module:Class`), or an entry point in the `locoscore.benchmarks` group of an installed
distribution (`name = "package.module:OBJECT"`). Nothing outside this package tests a
benchmark's name.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from locoscore.benchmarks.base import Benchmark, BlindBaseline, KnownFile, QuestionType
from locoscore.benchmarks.beam import BEAM, BEAM_FULL
from locoscore.benchmarks.locomo import LOCOMO
from locoscore.benchmarks.locomo_plus import LOCOMO_PLUS
from locoscore.benchmarks.longmemeval import LONGMEMEVAL
from locoscore.benchmarks.personamem import PERSONAMEM
from locoscore.errors import InputError
from locoscore.python_spec import PYTHON_PREFIX, import_spec
from locoscore.results.folder import recorded_benchmark_name

DEFAULT_BENCHMARK = "locomo"
ENTRY_POINT_GROUP = "locoscore.benchmarks"
_SPEC_EXAMPLE = "python:module:NAME (e.g. python:my_benchmark:BENCHMARK)"

BENCHMARKS: dict[str, Benchmark] = {
    b.name: b for b in (LOCOMO, LONGMEMEVAL, BEAM, BEAM_FULL, PERSONAMEM, LOCOMO_PLUS)
}


def _entry_points() -> dict[str, Any]:
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def benchmark_names() -> list[str]:
    """Every registered benchmark: the built-in ones, then the installed entry points (their
    names only; nothing is imported)."""
    return [*BENCHMARKS, *(n for n in _entry_points() if n not in BENCHMARKS)]


def _checked(value: Any, where: str, source: str | None) -> Benchmark:
    """A third-party object, as a benchmark: an instance (or a class taking no arguments)."""
    if isinstance(value, type) and issubclass(value, Benchmark):
        try:
            value = value()
        except Exception as exc:
            raise InputError(
                f"{where}: {value.__name__}() raised {exc}", field="--benchmark"
            ) from None
    if not isinstance(value, Benchmark):
        raise InputError(
            f"{where} is {type(value).__name__}, not a locoscore Benchmark", field="--benchmark"
        )
    from locoscore.benchmarks.contract import check_contract

    check_contract(value, where)
    value.source = source
    return value


def get_benchmark(name: str | None) -> Benchmark:
    """The benchmark called `name` (None: the default): built in, `python:module:NAME`, or
    an installed entry point; unknown names are bad input."""
    raw = (name or DEFAULT_BENCHMARK).strip()
    if raw.startswith(PYTHON_PREFIX):
        return _checked(import_spec(raw, "--benchmark", _SPEC_EXAMPLE), f"--benchmark {raw}", raw)
    key = raw.lower()
    if key in BENCHMARKS:
        return BENCHMARKS[key]
    entry = _entry_points().get(key) or _entry_points().get(raw)
    if entry is None:
        known = ", ".join([*benchmark_names(), "python:module:NAME"])
        raise InputError(f"unknown benchmark {name!r} (known: {known})", field="--benchmark")
    try:
        value = entry.load()
    except Exception as exc:
        raise InputError(
            f"entry point {entry.name} = {entry.value} ({ENTRY_POINT_GROUP}) failed to load: {exc}",
            field="--benchmark",
        ) from None
    # an entry point is found again by its name, so its folders need no source
    return _checked(value, f"entry point {entry.name} = {entry.value}", None)


def judge_protocols() -> list[str]:
    """Every judge protocol `judge --protocol` takes, over the built-in benchmarks that take
    a judge."""
    judged = (b for b in BENCHMARKS.values() if "judge" in b.commands)
    return list(dict.fromkeys(p for b in judged for p in b.judge_protocols))


def recorded_benchmark(directory: Path) -> str:
    """The benchmark a results folder records (`results.folder.recorded_benchmark_name`);
    LoCoMo's when it records none (its folders predate the field)."""
    return recorded_benchmark_name(directory) or DEFAULT_BENCHMARK


def benchmark_of(directories: Sequence[Path], requested: str | None) -> Benchmark:
    """The benchmark of the folders a command reads: they must agree with each other and
    with `--benchmark` when it is given."""
    recorded = {d: recorded_benchmark(d) for d in directories}
    names = set(recorded.values())
    if len(names) > 1:
        detail = ", ".join(f"{d}: {n}" for d, n in recorded.items())
        raise InputError(f"the folders hold results of different benchmarks ({detail})")
    bench = get_benchmark(names.pop() if names else DEFAULT_BENCHMARK)
    if requested is not None and get_benchmark(requested).name != bench.name:
        folder = next(iter(recorded))
        raise InputError(
            f"holds {bench.name} results, not {requested}", file=str(folder), field="--benchmark"
        )
    return bench


__all__ = [
    "BENCHMARKS",
    "DEFAULT_BENCHMARK",
    "ENTRY_POINT_GROUP",
    "Benchmark",
    "BlindBaseline",
    "KnownFile",
    "QuestionType",
    "benchmark_names",
    "get_benchmark",
    "judge_protocols",
]
