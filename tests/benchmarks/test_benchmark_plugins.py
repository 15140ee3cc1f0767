"""Third-party benchmarks: `--benchmark python:module:NAME` (bad specs are one line, exit 2)
and the `locoscore.benchmarks` entry-point group of an installed distribution."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.benchmarks import benchmark_names, benchmark_of, get_benchmark
from locoscore.cli import app

# A whole benchmark: its types and two questions inline; every other hook is the default.
MODULE = """
from locoscore.benchmarks import Benchmark, QuestionType
from locoscore.generic.parts import JudgeRules


class Mini(Benchmark):
    name = "{name}"
    description = "Mini: one conversation"
    types = (QuestionType(1, "fact", "fact"), QuestionType(2, "when", "when"))
    judge_rules = JudgeRules(task="You check an answer.", by_type={{"when": "same day."}})
    data = {{
        "conversations": [{{"id": "c1", "sessions": [
            {{"date": "2023-11-05", "turns": [["Sam", "We moved to Oslo."]]}}]}}],
        "questions": [
            {{"id": "q1", "conversation": "c1", "type": "fact",
             "question": "Where did Sam move?", "answer": "Oslo"}},
            {{"id": "q2", "conversation": "c1", "type": "when",
             "question": "When did Sam move?", "answer": "5 November 2023"}}],
    }}


BENCHMARK = Mini()
NOT_A_BENCHMARK = 3
"""


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder the commands run in, its modules forgotten afterwards."""
    monkeypatch.chdir(tmp_path)
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith(("plugin_", "ep_")):
            del sys.modules[name]


def _info(spec: str, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["dataset", "info", "--benchmark", spec, *extra])
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("python:plugin_nowhere:BENCHMARK", "no module 'plugin_nowhere' in this environment"),
        ("python:plugin_mini:MISSING", "module 'plugin_mini' has no 'MISSING'"),
        ("python:plugin_mini:NOT_A_BENCHMARK", "is int, not a locoscore Benchmark"),
        ("python:plugin_mini", "expected python:module:NAME"),
        ("python:plugin_broken:BENCHMARK", "importing 'plugin_broken' failed: ZeroDivisionError"),
        ("nosuch", "unknown benchmark 'nosuch' (known: locomo, longmemeval, beam, beam-full"),
    ],
)
def test_a_bad_spec_is_one_line_exit_2(workdir: Path, spec: str, message: str) -> None:
    (workdir / "plugin_mini.py").write_text(MODULE.format(name="mini"))
    (workdir / "plugin_broken.py").write_text("1 / 0\n")
    code, output = _info(spec)
    assert code == 2, output
    assert message in " ".join(output.split())
    assert len(output.strip().splitlines()) == 1, output


def test_a_python_spec_loads_from_the_working_directory(workdir: Path) -> None:
    (workdir / "plugin_mini2.py").write_text(MODULE.format(name="mini"))
    code, output = _info("python:plugin_mini2:BENCHMARK")
    assert code == 0, output
    assert " fact " in output and "total" in output
    bench = get_benchmark("python:plugin_mini2:BENCHMARK")
    assert (bench.name, bench.source) == ("mini", "python:plugin_mini2:BENCHMARK")
    data = bench.load(None)
    assert bench.data_version(data) == "mini-inline"
    assert [q.date_iso for q in bench.questions(data, bench.conversations(data))] == [
        "2023-11-05",
        "2023-11-05",
    ]


def test_bad_declared_data_names_file_record_and_field(workdir: Path) -> None:
    (workdir / "plugin_mini3.py").write_text(MODULE.format(name="mini"))
    bad = workdir / "bad.json"
    rows = {"conversations": [], "questions": [{"id": "q1", "conversation": "c9", "type": "x"}]}
    bad.write_text(json.dumps(rows))
    code, output = _info("python:plugin_mini3:BENCHMARK", "--dataset", str(bad))
    assert code == 2, output
    text = " ".join(output.split())
    assert "bad.json" in text and "questions[0]" in text and "conversation" in text
    assert "no conversation 'c9'" in text


def test_an_entry_point_registers_a_benchmark(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A distribution's `locoscore.benchmarks` entry point (its dist-info on sys.path, as
    `pip install` leaves it) is found by name; its folders find it again by that name."""
    site = workdir / "site"
    (site / "ep_mini-1.0.dist-info").mkdir(parents=True)
    (site / "ep_mini.py").write_text(MODULE.format(name="ep-mini"))
    (site / "ep_mini-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: ep-mini\nVersion: 1.0\n"
    )
    (site / "ep_mini-1.0.dist-info" / "entry_points.txt").write_text(
        textwrap.dedent("""\
            [locoscore.benchmarks]
            ep-mini = ep_mini:BENCHMARK
            """)
    )
    assert "ep-mini" not in benchmark_names()
    monkeypatch.syspath_prepend(str(site))
    assert "ep-mini" in benchmark_names()
    bench = get_benchmark("ep-mini")
    assert bench.name == "ep-mini" and bench.source is None
    code, output = _info("ep-mini")
    assert code == 0, output
    folder = workdir / "results"
    folder.mkdir()
    (folder / "summary.json").write_text(json.dumps(bench.summary_fields()))
    assert benchmark_of([folder], None) is bench
    assert "ep-mini" in CliRunner().invoke(app, ["dataset", "info", "--benchmark", "x"]).output


def _judge_mini(workdir: Path, fake: Any, module: str) -> tuple[int, str, dict[str, Any]]:
    (workdir / f"{module}.py").write_text(MODULE.format(name="mini"))
    answers = workdir / "answers.jsonl"
    rows = [
        {"question_id": "q1", "prediction": "They moved to Oslo."},
        {"question_id": "q2", "prediction": "", "error": "timeout: answer call"},
    ]
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = workdir / "judged"
    result = CliRunner().invoke(
        app,
        ["judge", str(answers), "--out", str(out), "--benchmark", f"python:{module}:BENCHMARK",
         "--protocol", "binary", "--provider", "openai", "--model", "gpt-4o-mini",
         "--base-url", fake.openai_url, "--runs", "2", "--no-progress"],
    )  # fmt: skip
    assert (out / "summary.json").is_file(), result.output
    summary = json.loads((out / "summary.json").read_text())
    return result.exit_code, result.output, summary["judge"]


def test_generic_judge_grades_a_failed_answer_0_without_a_call(workdir: Path) -> None:
    from locoscore.testing._verdicts import reference_recall_score
    from locoscore.testing.fake_provider import FakeConfig, FakeProvider

    config = FakeConfig(timeout_s=5.0, verdict=reference_recall_score)
    with FakeProvider(config) as fake:
        code, output, section = _judge_mini(workdir, fake, "plugin_judge_ok")
    assert code == 0, output
    # q1 CORRECT in both runs (Oslo is the whole gold), q2's run failed: 0, no call
    assert section["overall"] == {"mean": 50.0, "ci95": [0.0, 100.0], "count": 2}
    assert (section["questions"], section["judged"], section["failed_answers"]) == (2, 2, 1)
    assert (section["calls"]["made"], section["calls"]["judgments"]) == (1, 2)
    assert section["prompt_name"] == "mini-binary"


def test_generic_judge_with_a_question_left_unscored_fails(workdir: Path) -> None:
    from locoscore.testing.fake_provider import FakeConfig, FakeProvider

    with FakeProvider(FakeConfig(timeout_s=5.0, faults={"refusal": 1.0})) as fake:
        code, output, section = _judge_mini(workdir, fake, "plugin_judge_refused")
    assert code == 1, output
    assert (section["questions"], section["judged"], section["unscored"]) == (2, 1, 1)
    # the headline is over the one question with a J, and the section says so
    assert section["overall"]["count"] == 1
    assert "refused by the provider" in section["error"]  # why, by reason
    assert section["error"] in " ".join(output.split())


def test_generic_judge_refuses_other_answers_into_a_judged_folder(workdir: Path) -> None:
    from locoscore.testing._verdicts import reference_recall_score
    from locoscore.testing.fake_provider import FakeConfig, FakeProvider

    config = FakeConfig(timeout_s=5.0, verdict=reference_recall_score)
    with FakeProvider(config) as fake:
        code, output, _ = _judge_mini(workdir, fake, "plugin_judge_guard")
        assert code == 0, output
        before = (workdir / "judged" / "summary.json").read_text()
        other = workdir / "other.jsonl"
        other.write_text(json.dumps({"question_id": "q1", "prediction": "Bergen"}) + "\n")
        result = CliRunner().invoke(
            app,
            ["judge", str(other), "--out", str(workdir / "judged"),
             "--benchmark", "python:plugin_judge_guard:BENCHMARK", "--protocol", "binary",
             "--provider", "openai", "--model", "gpt-4o-mini", "--base-url", fake.openai_url,
             "--runs", "2", "--no-progress"],
        )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert (workdir / "judged" / "summary.json").read_text() == before
