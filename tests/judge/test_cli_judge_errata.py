"""`locoscore judge --errata`: J also on the questions whose gold stands; a bad list stops the
command before any call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from locoscore.benchmarks.locomo.data.dataset import Dataset
from locoscore.cli import app
from locoscore.testing.fake_provider import FakeProvider

runner = CliRunner()


def _conv26_predictions(dataset: Dataset, path: Path) -> Path:
    """conv-26's non-adversarial questions, each answered with its gold."""
    sample = dataset.samples[0]
    lines = [
        json.dumps(
            {
                "sample_id": qa.sample_id,
                "qa_index": qa.qa_index,
                "question": qa.question,
                "answer": qa.gold,
                "predicted_answer": qa.gold_text,
                "category": qa.category,
            }
        )
        for qa in sample.qa
        if qa.category != 5
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _judge(fake: FakeProvider, predictions: Path, out: Path, *extra: str) -> Any:
    args = ["judge", str(predictions), "--out", str(out), "--base-url", fake.url]
    return runner.invoke(app, [*args, "--no-progress", "--runs", "1", *extra])


def test_judge_adds_j_on_the_questions_whose_gold_stands(
    fake: FakeProvider, tmp_path: Path, dataset: Dataset, locomo_path: Path, errata_path: Path
) -> None:
    predictions = _conv26_predictions(dataset, tmp_path / "p.jsonl")
    out = tmp_path / "out"
    result = _judge(
        fake, predictions, out, "--dataset", str(locomo_path), "--errata", str(errata_path)
    )
    assert result.exit_code == 0, result.output
    # expected counts straight from the raw list: conv-26 is sample 0 (`locomo_0_qa<j>`)
    raw = json.loads(errata_path.read_text())
    wrong: dict[str, int] = {}
    for entry in raw:
        sample, index = entry["question_id"].removeprefix("locomo_").split("_qa")
        if sample == "0" and entry["error_type"] != "WRONG_CITATION":
            category = str(dataset.samples[0].qa[int(index)].category)
            wrong[category] = wrong.get(category, 0) + 1
    asked: dict[str, int] = {}
    for qa in dataset.samples[0].qa:
        if qa.category != 5:
            asked[str(qa.category)] = asked.get(str(qa.category), 0) + 1
    report = json.loads((out / "summary.json").read_text())["report"]
    j_all = report["metrics"]["j_mean"]
    j_verified = report["verified_gold"]["metrics"]["j_mean"]
    assert j_all["overall"]["n"] == sum(asked.values())
    assert j_verified["overall"]["n"] == sum(asked.values()) - sum(wrong.values())
    assert sum(wrong.values()) > 0
    assert {c: cell["n"] for c, cell in j_verified["by_category"].items()} == {
        c: asked[c] - wrong.get(c, 0) for c in asked
    }
    assert "verified gold (errata sha256 f298ef46263f...)" in " ".join(result.output.split())


def test_a_bad_errata_list_stops_judge_before_any_call(
    fake: FakeProvider, tmp_path: Path, dataset: Dataset, locomo_path: Path
) -> None:
    predictions = _conv26_predictions(dataset, tmp_path / "p.jsonl")
    bad = tmp_path / "errors.json"
    bad.write_text("[{")
    out = tmp_path / "out"
    result = _judge(fake, predictions, out, "--dataset", str(locomo_path), "--errata", str(bad))
    assert result.exit_code == 2
    assert result.output.strip().startswith(f"error: {bad}: not valid JSON")
    assert len(result.output.strip().splitlines()) == 1
    assert fake.requests == 0
    assert not out.exists()
