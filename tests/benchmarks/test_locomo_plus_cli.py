"""LoCoMo-Plus through the commands, on three items of the real file: `run` (bm25, extractive
answers, no model), `judge` (the fake provider, real local HTTP), `report`, `board` and
`compare`; the strict J is carried into the report and the board."""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from locomo_plus_helpers import write_cut
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing.fake_provider import FakeConfig, FakeProvider


def cue_overlap(prompt: str) -> int:
    """The fake judge: 100 when the reply shares a word of 6+ letters with the cue, else 0."""
    cue = prompt.split("call it the cue:", 1)[1].split("Now the same person", 1)[0]
    fenced = re.search(r"<candidate[^>]*>(.*?)</candidate", prompt, re.S)
    reply = fenced.group(1) if fenced else ""

    def words(text: str) -> set[str]:
        return {w.lower() for w in re.findall(r"[A-Za-z]{6,}", text)}

    return 100 if words(cue) & words(reply) else 0


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-plus-cli-0123456789")
    monkeypatch.delenv("LOCOSCORE_DATASET", raising=False)
    with FakeProvider(FakeConfig(latency_s=0.0, timeout_s=5.0, verdict=cue_overlap)) as p:
        yield p


def _cli(*args: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def test_run_judge_report_board_compare(fake: FakeProvider, tmp_path: Path) -> None:
    data = write_cut(tmp_path / "data", (0, 1, 101))  # item 1: a one-week gap
    run = tmp_path / "runs" / "bm25"
    _cli("run", "--benchmark", "locomo-plus", "--dataset", str(data), "--out", str(run),
         "--system", "bm25", "--top-k", "3", "--answer-provider", "extractive",
         "--skip-probe", "--no-progress")  # fmt: skip
    assert "|stitch-v2|" in json.loads((run / "run.json").read_text())["signature"]
    lines = [json.loads(x) for x in (run / "predictions.jsonl").read_text().splitlines()]
    assert [r["question_id"] for r in lines] == ["lp-000", "lp-001", "lp-002"]
    # the cue is the evidence: retrieval is scored against its turns
    assert all(r["evidence"] and r["evidence_recall"] is not None for r in lines)
    # B: replies written by hand, each quoting its cue (J 100 each)
    cues = tmp_path / "cue-replies.jsonl"
    cues.write_text("".join(
        json.dumps({"question_id": r["question_id"], "prediction": f"Like {r['answer']}"}) + "\n"
        for r in lines
    ))  # fmt: skip
    folders = [run, tmp_path / "runs" / "quoting"]
    for answers, out in ((run / "predictions.jsonl", folders[0]), (cues, folders[1])):
        judged = _cli("judge", str(answers), "--benchmark", "locomo-plus", "--dataset",
                      str(data), "--out", str(out), "--base-url", fake.url, "--runs", "1",
                      "--no-progress")  # fmt: skip
        assert "J strict (without the 1 short-gap items)" in judged.output
    assert json.loads((folders[1] / "summary.json").read_text())["judge"]["overall"]["mean"] == 100
    _cli("report", str(folders[0]))
    report = (folders[0] / "report.md").read_text()
    assert "strict J (without the 1 short-gap items)" in report and "J strict" in report
    board = tmp_path / "board"
    _cli("board", *map(str, folders), "--out", str(board))
    (group,) = json.loads((board / "board.json").read_text())["groups"]
    assert len(group["rows"]) == 2
    for row in group["rows"]:  # J and the strict J, each over its own questions
        assert row["metrics"]["j"]["overall"]["n"] == 3
        assert row["metrics"]["j_strict"]["overall"]["n"] == 2
    compared = tmp_path / "compare"
    _cli("compare", *map(str, folders), "--out", str(compared))
    result = json.loads((compared / "compare.json").read_text())
    assert result["benchmark"] == "locomo-plus" and result["groups"]["overall"]["count"] == 3
