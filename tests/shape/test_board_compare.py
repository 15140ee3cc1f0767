"""The board and compare of the example plugin, as tests/board does for the built-in
benchmarks (test_board_every_folder.py, test_compare_named.py on their session's folders):
a run not judged yet gets a board row (its answered count and signature; J not judged),
beside the judged run of the same data; compare names which folder is A and which is B."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from shapes import TINY, write_tiny_data
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing._verdicts import reference_recall_score
from locoscore.testing.fake_provider import FakeConfig, FakeProvider


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-shape-board-0123456789")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with FakeProvider(FakeConfig(timeout_s=5.0, verdict=reference_recall_score)) as provider:
        yield provider


def _cli(*args: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def _run(dataset: Path, out: Path, *extra: str) -> Path:
    _cli("run", "--benchmark", TINY, "--dataset", str(dataset), "--out", str(out),
         "--system", "bm25", "--top-k", "1", "--answer-provider", "extractive",
         "--skip-probe", "--no-progress", *extra)  # fmt: skip
    return out


def test_an_unjudged_example_run_gets_a_board_row_and_compare_names_its_folders(
    fake: FakeProvider, tmp_path: Path
) -> None:
    dataset = write_tiny_data(tmp_path / "tiny.json")
    judged = _run(dataset, tmp_path / "runs" / "turns")
    _cli("judge", str(judged / "predictions.jsonl"), "--benchmark", TINY, "--dataset",
         str(dataset), "--out", str(judged), "--provider", "openai", "--model", "gpt-4o-mini",
         "--base-url", fake.openai_url, "--runs", "1", "--no-progress")  # fmt: skip
    unjudged = _run(dataset, tmp_path / "runs" / "sessions", "--system-option",
                    "granularity=session")  # fmt: skip
    assert "judge" not in json.loads((unjudged / "summary.json").read_text())

    board = tmp_path / "board"
    printed = _cli("board", str(judged), str(unjudged), "--out", str(board)).output
    document = json.loads((board / "board.json").read_text())
    by_judge = {g["identity"]["judge_signature"] is None: g for g in document["groups"]}
    group = by_judge[True]  # the unjudged run: a group of its own, its row not dropped
    (row,) = group["rows"]
    assert row["folder"] == str(unjudged)
    # ranked by its declared metric, which `run` scored (session items carry their date:
    # gold recall 1 on all six questions), with J not judged
    assert group["headline"] == "metric"
    overall = row["metrics"]["metric"]["overall"]
    assert (overall["mean"], overall["n"]) == (100.0, 6)
    assert (row["questions"], row["answered"], row["failed"]) == (6, 6, 0)
    assert row["judged"] is False and row["judge_cost_usd"] is None
    summary = json.loads((unjudged / "summary.json").read_text())
    assert row["run_signature"] == summary["run"]["signature"]
    # the same data file as the judged run: only the judge sets the groups apart
    same = by_judge[False]["identity"]["questions_sha256"]
    assert group["identity"]["questions_sha256"] == same
    assert document["groups_differ_in"] == ["judge"]
    page = (board / "board.md").read_text()
    line = next(x for x in page.splitlines() if str(unjudged) in x and "| not judged |" in x)
    assert "| not judged | 6 | 6 | 0 |" in line  # questions, answered, failed
    # the terminal wraps a long path anywhere: compared without the line breaks' spaces
    assert f"Group2:1row,leader{unjudged}" in "".join(printed.split())

    # compare reads the declared metric of the two runs: turns 50.0, sessions 100.0
    out = tmp_path / "compare"
    lines = _cli("compare", str(judged), str(unjudged), "--out", str(out)).output.splitlines()
    assert f"A = {judged}" in lines and f"B = {unjudged}" in lines
    # J is the judged run's alone: compared on the metric both runs scored (main refused:
    # "the folders share no scored headline")
    result = json.loads((out / "compare.json").read_text())
    assert result["headline"] == "gold recall"
    overall = result["groups"]["overall"]
    assert (overall["count"], overall["a"], overall["b"]) == (6, 50.0, 100.0)
    assert result["groups"]["when"]["difference"] == 100.0
    for name in ("compare.md", "compare.html"):
        text = (out / name).read_text()
        assert f"A = {judged}" in text and f"B = {unjudged}" in text, name
