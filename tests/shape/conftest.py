"""tests/shape: one suite, parametrised over every registered benchmark and the example
plugin (`shapes.SHAPES`), proving each guarantee of issue 19 for each. The helper modules of
the per-benchmark tests (LoCoMo's invented file, BEAM's judge stand-in, the run helpers) are
importable here; the example's folder too, as `--benchmark python:tiny_benchmark:BENCHMARK`
run from examples/ would find it.

The board's and compare's guarantees for the built-in benchmarks stay in tests/board
(test_board_every_folder.py, test_compare_named.py) on the folders its session fixture
builds once for every benchmark; test_board_compare.py here gives the example the same."""

from __future__ import annotations

import sys
from pathlib import Path

from shapes import EXAMPLES

TESTS = Path(__file__).resolve().parents[1]
for folder in (TESTS / "judge", TESTS / "benchmarks", TESTS / "run", EXAMPLES):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
