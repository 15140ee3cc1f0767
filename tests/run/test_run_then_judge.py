"""A run folder is a results folder: `judge` adds J to it, and warns about self-judging."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from run_helpers import llm_args, run_cli
from typer.testing import CliRunner

from locoscore.cli import app


@pytest.fixture
def run_dir(fake: Any, locomo_path: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    args = llm_args(fake, locomo_path, out, "--conversations", "conv-30", "--exclude-adversarial")
    assert run_cli(*args).exit_code == 0
    return out


def _judge(fake: Any, run_dir: Path, model: str, dataset: Path) -> Any:
    return CliRunner().invoke(
        app,
        [
            "judge", str(run_dir / "predictions.jsonl"), "--out", str(run_dir),
            "--dataset", str(dataset), "--provider", "openai-compatible", "--model", model,
            "--base-url", fake.openai_url, "--runs", "2", "--no-progress",
        ],
    )  # fmt: skip


def test_judging_with_the_answer_model_warns_about_self_judging(
    fake: Any, run_dir: Path, locomo_path: Path
) -> None:
    result = _judge(fake, run_dir, "fake-answerer", locomo_path)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "warning: self-judging: fake-answerer produced the answers" in text


def test_judging_with_another_model_adds_j_beside_the_run_section(
    fake: Any, run_dir: Path, locomo_path: Path
) -> None:
    result = _judge(fake, run_dir, "fake-judge", locomo_path)
    assert result.exit_code == 0, result.output
    assert "self-judging" not in result.output
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["judge"]["overall"]["count"] == 81
    assert summary["run"]["signature"].startswith("run:bm25|")
    report = (run_dir / "report.md").read_text()
    assert "How these predictions were produced (locoscore run)" in report
    assert "Judge runs and agreement" in report
