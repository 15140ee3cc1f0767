"""examples/tiny_benchmark.py through run -> judge -> report -> board -> compare, as a user
runs it: `python -m locoscore ... --benchmark python:tiny_benchmark:BENCHMARK` from the
examples/ folder, against the fake provider (reference recall decides each verdict).

Hand-computed on the example's data, bm25 with top-k 1 and the extractive answerer:
- A (turn items): each question's top turn is its evidence turn, which holds the answer of
  the three `fact` questions (Miso, Lisbon, the cello) but no date, so no word of the three
  `when` golds (April 2024, 1 June 2024, 20 July 2024): gold recall 1, 1, 1 and 0, 0, 0.
- B (session items): the top item is the evidence session, whose header carries its date as
  written for people ("Session 2 (15 April 2024)"): gold recall 1 for all six.
The fake's verdict is CORRECT when >= 70 % of the gold's words are in the answer, so J equals
the metric here: A 50.0 (fact 100, when 0), B 100.0.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from locoscore.testing._verdicts import reference_recall_score
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SPEC = "python:tiny_benchmark:BENCHMARK"


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(timeout_s=5.0, verdict=reference_recall_score)) as provider:
        yield provider


def _locoscore(*args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "ANTHROPIC"))}
    env.update(OPENAI_API_KEY="dummy", PYTHONDONTWRITEBYTECODE="1", COLUMNS="200")
    env.pop("LOCOSCORE_DATASET", None)
    done = subprocess.run(
        [sys.executable, "-m", "locoscore", *args],
        cwd=EXAMPLES,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def _summary(folder: Path) -> dict:
    return json.loads((folder / "summary.json").read_text())


def test_tiny_benchmark_run_judge_report_board_compare(fake: FakeProvider, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    common = ("--benchmark", SPEC, "--system", "bm25", "--answer-provider", "extractive")
    printed = _locoscore("run", *common, "--top-k", "1", "--out", str(a), "--no-progress")
    assert f"wrote {a}/predictions.jsonl, run.json, scores.jsonl, summary.json" in printed
    _locoscore("run", *common, "--top-k", "1", "--system-option", "granularity=session",
               "--out", str(b), "--no-progress")  # fmt: skip
    for folder, when in ((a, 0.0), (b, 100.0)):
        metric = _summary(folder)["metric"]
        assert metric["name"] == "gold_recall"
        assert metric["overall"]["mean"] == (100.0 + when) / 2
        assert metric["overall"]["count"] == 6
        by_type = {t: block["mean"] for t, block in metric["by_type"].items()}
        assert by_type == {"single fact": 100.0, "when": when}
        # the folder records the spec that finds the benchmark again
        assert _summary(folder)["benchmark_source"] == SPEC
        assert json.loads((folder / "run.json").read_text())["benchmark_source"] == SPEC

    for folder in (a, b):
        printed = _locoscore(
            "judge", str(folder / "predictions.jsonl"), "--out", str(folder), "--benchmark", SPEC,
            "--protocol", "binary", "--provider", "openai", "--model", "gpt-4o-mini",
            "--base-url", fake.openai_url, "--runs", "2", "--no-progress",
        )  # fmt: skip
        assert "locoscore's fake provider" in printed
    judge_a, judge_b = _summary(a)["judge"], _summary(b)["judge"]
    assert (judge_a["overall"]["mean"], judge_b["overall"]["mean"]) == (50.0, 100.0)
    assert judge_a["by_type"]["when"]["mean"] == 0.0
    assert (judge_a["questions"], judge_a["judged"], judge_a["unscored"]) == (6, 6, 0)
    assert judge_a["served"]["fake"] is True
    assert "|fake|" in judge_a["signature"] and "|runs:2|" in judge_a["signature"]
    # 6 questions x 2 runs, nothing cached: OpenAI serves both runs of a question in one
    # request (`n`)
    assert (judge_a["calls"]["made"], judge_a["calls"]["judgments"]) == (6, 12)
    rows = [json.loads(line) for line in (a / "scores.jsonl").read_text().splitlines()]
    assert [(r["question_id"], r["metric"], r["j"]) for r in rows][:2] == [
        ("ana-1", 1.0, 1.0),
        ("ana-2", 0.0, 0.0),
    ]

    _locoscore("report", str(a))  # the folder's recorded spec finds the benchmark
    report = (a / "report.md").read_text()
    assert report.startswith("# bm25 on Tiny (locoscore's example)")
    assert "gold recall: 50.0" in report and "J: 50.0" in report
    assert (a / "report.html").is_file()

    board = tmp_path / "board"
    _locoscore("board", str(a), str(b), "--out", str(board))
    board_md = (board / "board.md").read_text()
    assert "benchmark: tiny" in board_md
    assert str(a) in board_md and str(b) in board_md
    entries = json.loads((board / "board.json").read_text())
    assert "tiny" in json.dumps(entries)

    compared = tmp_path / "compare"
    printed = _locoscore("compare", str(a), str(b), "--out", str(compared))
    assert "overall: A 50.0, B 100.0, B - A +50.0" in printed
    assert f"A = {a}" in printed and f"B = {b}" in printed
    for name in ("compare.md", "compare.html"):
        text = (compared / name).read_text()
        assert f"A = {a}" in text and f"B = {b}" in text, name
    result = json.loads((compared / "compare.json").read_text())
    assert result["groups"]["when"]["difference"] == 100.0
    assert result["groups"]["single fact"]["difference"] == 0.0
