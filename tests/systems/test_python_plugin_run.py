"""A user's own class through `locoscore run`, end to end on a real conversation."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.cli import app

runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# Fails one question; answers the rest with the first turn it stored.
FLAKY = """
from locoscore.systems.base import MemoryItem


class Flaky:
    def __init__(self, options):
        self.first = {}

    async def reset(self, conversation_id):
        self.first.pop(conversation_id, None)

    async def add(self, session):
        item = MemoryItem(session.turns[0].render(), 1.0, session.date_iso)
        self.first.setdefault(session.conversation_id, item)
        return {"input_tokens": 3, "output_tokens": 1}

    async def search(self, query):
        if query.question_id == "conv-26#2":
            raise ValueError("index corrupted")
        return [self.first[query.conversation_id]]
"""


def run(locomo_path: Path, out: Path, system: str, *extra: str) -> tuple[int, str]:
    data = ["--conversations", "conv-26", "--dataset", str(locomo_path), "--out", str(out)]
    system_args = ["--system", system, "--answer-provider", "extractive"]
    result = runner.invoke(app, ["run", *system_args, *data, "--no-progress", *extra])
    return result.exit_code, result.output


def predictions(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]


def test_example_class_runs_end_to_end_on_conv_26(locomo_path, tmp_path, monkeypatch):
    monkeypatch.chdir(EXAMPLES)
    monkeypatch.setattr(sys, "path", list(sys.path))
    out = tmp_path / "run"
    code, output = run(locomo_path, out, "python:my_memory:KeywordMemory")
    assert code == 0, output
    records = predictions(out)
    assert len(records) == 199  # conv-26's questions, adversarial included
    assert all(r["error"] is None for r in records)
    first = records[0]
    # "When did Caroline go to the LGBTQ support group?" shares caroline/lgbtq/support/group
    # with D1:3 (evidence), the earliest turn with four keywords in common
    assert first["prediction"] == (
        "Caroline: I went to a LGBTQ support group yesterday and it was so powerful."
    )
    assert first["retrieved"][0]["date_raw"] == "1:56 pm on 8 May, 2023"  # session 1's date
    assert first["retrieved"][0]["dia_ids"] == ["D1:3"]
    assert first["evidence_recall"] == 1.0
    run_json = json.loads((out / "run.json").read_text())
    assert run_json["signature"].startswith(
        "run:python:my_memory:KeywordMemory|opts:min_overlap=1|"
    )


def test_user_errors_are_recorded_per_question_and_usage_is_counted(
    locomo_path, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / "flaky_memory.py").write_text(FLAKY)
    out = tmp_path / "run"
    # a deliberately crude memory (the first turn of each conversation): the probe would
    # refuse it, and the point here is what happens to its errors during a run
    code, output = run(locomo_path, out, "python:flaky_memory:Flaky", "--skip-probe")
    assert code == 1, output  # one question failed: recorded, the run finished
    records = {r["question_id"]: r for r in predictions(out)}
    assert len(records) == 199
    failed = [qid for qid, r in records.items() if r["error"] is not None]
    assert failed == ["conv-26#2"]
    assert records["conv-26#2"]["error"] == (
        "search failed: python:flaky_memory:Flaky search "
        "(question conv-26#2): ValueError: index corrupted"
    )
    assert records["conv-26#0"]["prediction"].startswith("Caroline: Hey Mel!")  # D1:1
    # the usage hook: 19 sessions x (3 in, 1 out)
    usage = json.loads((out / "run.json").read_text())["ingestion"]["per_conversation"]["conv-26"]
    assert usage["usage"]["input_tokens"] == 57 and usage["usage"]["output_tokens"] == 19


@pytest.mark.parametrize("name", ["python:flaky_memory:Nope", "python:missing_mod_q:X"])
def test_bad_class_stops_run_before_anything_is_written(name, locomo_path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / "flaky_memory.py").write_text(FLAKY)
    out = tmp_path / "run"
    code, output = run(locomo_path, out, name)
    assert code == 2, output
    assert output.strip().startswith(f"error: --system {name}: ")
    assert not out.exists()


def test_a_start_that_raises_stops_the_run_as_bad_input(locomo_path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    source = FLAKY.replace(
        "    async def reset",
        "    async def start(self):\n        raise OSError('db down')\n\n    async def reset",
        1,
    )
    (tmp_path / "down_memory.py").write_text(source)
    out = tmp_path / "run"
    code, output = run(locomo_path, out, "python:down_memory:Flaky")
    assert code == 2, output
    # (after the run's signature line)
    assert output.strip().splitlines()[-1] == (
        "error: --system python:down_memory:Flaky: start() raised OSError: db down"
    )
    assert not out.exists()
