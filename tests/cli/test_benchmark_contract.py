"""A benchmark's contract is checked when it is loaded: a plug-in lacking a required part is
refused at `run` in one line naming every missing part (exit 2), before anything is written;
its data is validated as the built-in loaders validate theirs (evidence naming no turn is
refused), with locations as 0-based JSON paths."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.benchmarks import BENCHMARKS
from locoscore.benchmarks.contract import contract_problems
from locoscore.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# The how-to's 39-line benchmark, less its description (and, in a second module, its metric
# and judge rules): a user's first try.
PETS = """
from locoscore.benchmarks import Benchmark, QuestionType

class Pets(Benchmark):
    name = "pets"
    types = (QuestionType(1, "fact", "Fact"),)
    data = {"conversations": [{"id": "c", "sessions": [
        {"date": "2024-01-02", "turns": [["Ann", "My dog is Rex."]]}]}],
        "questions": [{"id": "q", "conversation": "c", "type": "fact",
                       "question": "Dog?", "answer": "Rex", "evidence": ["S1:1"]}]}
{extra}

BENCHMARK = Pets()
"""
PARTS = """
    from tiny_benchmark import BENCHMARK as _tiny
    metric = _tiny.metric
    judge_rules = _tiny.judge_rules
"""


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("LOCOSCORE_DATASET", raising=False)
    yield tmp_path
    for name in ("pets_bare", "pets_parts", "tiny_benchmark"):
        sys.modules.pop(name, None)


def _run(spec: str, out: Path, *extra: str) -> tuple[int, str]:
    args = ["run", "--benchmark", spec, "--system", "bm25", "--answer-provider", "extractive",
            "--top-k", "1", "--out", str(out), "--no-progress", *extra]  # fmt: skip
    result = CliRunner().invoke(app, args, env={"COLUMNS": "300"})
    return result.exit_code, result.output


def test_every_built_in_benchmark_keeps_the_contract() -> None:
    assert {name: contract_problems(b) for name, b in BENCHMARKS.items()} == {
        name: [] for name in BENCHMARKS
    }


def test_a_plug_in_without_description_or_judge_rules_is_refused_in_one_line(
    workdir: Path,
) -> None:
    (workdir / "pets_bare.py").write_text(textwrap.dedent(PETS.replace("{extra}", "")))
    code, output = _run("python:pets_bare:BENCHMARK", workdir / "out")
    assert code == 2, output
    lines = output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in output, output
    assert "`description`" in lines[0] and "`judge_rules`" in lines[0]
    assert "`metric`" not in lines[0]  # a judged benchmark may have no lexical metric
    assert not (workdir / "out").exists()


def test_a_plug_in_taking_no_judge_must_declare_a_metric(workdir: Path) -> None:
    module = PETS.replace("{extra}", '    commands = frozenset({"run", "report"})').replace(
        'name = "pets"', 'name = "pets"\n    description = "Pets: one dog"'
    )
    (workdir / "pets_bare.py").write_text(textwrap.dedent(module))
    code, output = _run("python:pets_bare:BENCHMARK", workdir / "out")
    assert code == 2, output
    assert "`metric`" in output and "`judge_rules`" not in output


def test_a_plug_in_with_every_part_runs(workdir: Path) -> None:
    module = PETS.replace("{extra}", PARTS).replace(
        'name = "pets"', 'name = "pets"\n    description = "Pets: one dog"'
    )
    (workdir / "pets_parts.py").write_text(textwrap.dedent(module))
    code, output = _run("python:pets_parts:BENCHMARK", workdir / "out")
    assert code == 0, output


def _data_file(workdir: Path, change: dict) -> Path:
    from tiny_benchmark import DATA

    data = json.loads(json.dumps(DATA))
    for index, fields in change.items():
        data["questions"][index].update(fields)
    path = workdir / "data.json"
    path.write_text(json.dumps(data))
    return path


def test_evidence_naming_no_turn_is_refused_with_its_0_based_location(workdir: Path) -> None:
    # the tiny benchmark's conversations have two sessions: S9:1 names none of their turns
    path = _data_file(workdir, {2: {"evidence": ["S1:1", "S9:1"]}})
    code, output = _run("python:tiny_benchmark:BENCHMARK", workdir / "out", "--dataset", str(path))
    assert code == 2, output
    line = " ".join(output.split())
    assert "record questions[2], field 'evidence[1]'" in line
    assert "no turn 'S9:1' in conversation 'ben'" in line


def test_a_type_outside_the_declared_ones_is_located_0_based(workdir: Path) -> None:
    path = _data_file(workdir, {0: {"type": "trivia"}})
    code, output = _run("python:tiny_benchmark:BENCHMARK", workdir / "out", "--dataset", str(path))
    assert code == 2, output
    line = " ".join(output.split())
    assert "record questions[0], field 'type'" in line and "unknown type 'trivia'" in line
