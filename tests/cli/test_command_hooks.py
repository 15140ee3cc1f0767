"""Every command calls the benchmark's command hook: a benchmark that overrides one is
served by it (its lines printed, its failure exit 1), with no flag in the CLI to set."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.cli import app

MODULE = """
from locoscore.benchmarks import Benchmark, QuestionType


class Loud(Benchmark):
    name = "loud"
    description = "Loud: its commands say who served them"
    types = (QuestionType(1, "fact", "fact"),)
    commands = frozenset({"report", "compare", "score"})

    def report_command(self, call, terminal):
        terminal.out.print(f"loud report of {call.directory.name}")
        return False

    def compare_command(self, call, terminal):
        terminal.out.print(f"loud compare of {len(call.folders)} folders into {call.out.name}")
        return True  # failed after writing: the CLI exits 1

    def score_command(self, call, terminal):
        terminal.out.print(f"loud score with {call.protocols}")
        return False


BENCHMARK = Loud()
"""


SPEC = "python:plugin_loud:BENCHMARK"


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "plugin_loud.py").write_text(textwrap.dedent(MODULE))
    for folder in ("a", "b"):  # results folders that record the benchmark
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "summary.json").write_text(json.dumps({"benchmark_source": SPEC}))
    yield tmp_path
    sys.modules.pop("plugin_loud", None)


def test_report_is_the_benchmarks_own(workdir: Path) -> None:
    result = CliRunner().invoke(app, ["report", "a", "--benchmark", SPEC])
    assert (result.exit_code, result.output) == (0, "loud report of a\n")


def test_a_failed_compare_hook_exits_1(workdir: Path) -> None:
    result = CliRunner().invoke(app, ["compare", "a", "b", "--out", "cmp", "--benchmark", SPEC])
    assert (result.exit_code, result.output) == (1, "loud compare of 2 folders into cmp\n")


def test_score_is_the_benchmarks_own(workdir: Path) -> None:
    (workdir / "p.jsonl").write_text("")
    args = ["score", "p.jsonl", "--protocols", "spec", "--benchmark", SPEC]
    result = CliRunner().invoke(app, args)
    assert (result.exit_code, result.output) == (0, "loud score with spec\n")
