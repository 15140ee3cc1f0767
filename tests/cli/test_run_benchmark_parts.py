"""`run` asks the benchmark for what only some benchmarks have: the reports it builds beside
its scores (`build_run_reports`), what it prints of them (`print_run_scores`) and the metric
run.json splits by retrieved evidence (`evidence_metric`); the defaults build, print and
split nothing. Shown with the example benchmark (examples/tiny_benchmark.py) and a subclass
of it that declares the three parts, run with bm25 (top-k 1) and the extractive answerer.

Hand-computed (see tests/examples/test_tiny_benchmark.py): each question's top turn is its
evidence turn (evidence recall 1 for all six); it holds the gold of the three `fact`
questions (Miso, Lisbon, the cello) and no word of the three `when` golds (dates). With the
metric "the gold's words all in the answer", the split is all: n 6, mean 50.0.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

MODULE = """
from locoscore.results.layout import RUN_JSON
from tiny_benchmark import TinyBenchmark, gold_recall


class Shown(TinyBenchmark):
    name = "shown"

    def build_run_reports(self, directory, errata=None):
        (directory / "shown.md").write_text(f"built beside {RUN_JSON}, errata {errata}")

    def print_run_scores(self, summary, t):
        t.out.print(f"shown: {summary['metric']['overall']['mean']:.1f}")

    def evidence_metric(self):
        return "all_words", lambda answer, gold, _type: float(gold_recall(answer, gold) == 1)


BENCHMARK = Shown()
"""


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("LOCOSCORE_DATASET", raising=False)
    (tmp_path / "plugin_shown.py").write_text(textwrap.dedent(MODULE))
    yield tmp_path
    for name in ("plugin_shown", "tiny_benchmark"):
        sys.modules.pop(name, None)


def _run(spec: str, out: Path) -> str:
    args = ["run", "--benchmark", spec, "--system", "bm25", "--answer-provider", "extractive",
            "--top-k", "1", "--out", str(out), "--no-progress"]  # fmt: skip
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def _measures(out: Path) -> dict:
    return json.loads((out / "run.json").read_text())["measures"]


def test_run_builds_prints_and_splits_what_the_benchmark_declares(workdir: Path) -> None:
    out = workdir / "shown"
    printed = _run("python:plugin_shown:BENCHMARK", out)
    assert (out / "shown.md").read_text() == "built beside run.json, errata None"
    assert "shown: 50.0\n" in printed
    split = _measures(out)["f1_by_evidence"]
    assert split == {
        "all": {"n": 6, "all_words": 50.0},
        "some": {"n": 0, "all_words": None},
        "none": {"n": 0, "all_words": None},
        "unknown": {"n": 0, "all_words": None},
    }


def test_a_benchmark_declaring_none_of_them_gets_none(workdir: Path) -> None:
    out = workdir / "tiny"
    printed = _run("python:tiny_benchmark:BENCHMARK", out)
    assert _measures(out)["f1_by_evidence"] is None
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == [
        "manifest.json", "predictions.jsonl", "run.json", "run_state.sqlite", "scores.jsonl",
        "summary.json",
    ]  # fmt: skip
    assert "shown" not in printed
