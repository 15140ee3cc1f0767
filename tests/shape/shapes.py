"""The benchmarks every guarantee of issue 19 is proved for: each one the registry holds and
the example plugin (`examples/tiny_benchmark.py`, loaded as a user loads it, by its
`python:module:NAME` spec), so that the generic machinery is held to what the built-in
benchmarks give.

`beam-full` is `beam` over the untruncated chat.json (the same `Beam` object, one flag):
every guarantee runs through the same code, so it is listed as a variant, not run twice.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from locoscore.benchmarks import BENCHMARKS

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
TINY = "python:tiny_benchmark:BENCHMARK"
VARIANTS = {"beam-full": "beam"}  # registered name -> the shape whose tests cover it
SHAPES = (*(name for name in BENCHMARKS if name not in VARIANTS), TINY)
IDS = {TINY: "tiny-example"}


def shape_id(name: str) -> str:
    return IDS.get(name, name)


def params(*names: str, marks: dict[str, pytest.MarkDecorator] | None = None) -> list[Any]:
    """pytest params of `names` (default: every shape), each with its readable id."""
    return [
        pytest.param(name, id=shape_id(name), marks=(marks or {}).get(name, ()))
        for name in names or SHAPES
    ]


def tiny_module() -> ModuleType:
    """The example's module, imported from examples/ as `--benchmark` imports it."""
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    import tiny_benchmark

    return tiny_benchmark


def write_tiny_data(path: Path) -> Path:
    """The example's inline data as a data file of the same shape (`--dataset FILE`)."""
    path.write_text(json.dumps(tiny_module().DATA), encoding="utf-8")
    return path


# `--batch` with a wait that ends long before the fake's batch is done (1,000 polls)
SHORT_BATCH_WAIT = ("--batch", "--batch-poll", "0.01", "--batch-wait", "0.05")


def assert_batch_still_running(result: Any, unwritten: Path) -> None:
    """A command whose batch outlived `--batch-wait`: it says so (exit 0), `unwritten` is not
    written."""
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "is still running; rerun the same command to collect it" in said, said
    assert not unwritten.exists()
