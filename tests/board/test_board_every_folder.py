"""One board row for every results folder, of every benchmark: a run not judged yet (its
answered count, cost and signature; J not judged), and a judged answers file grouped with
the runs of the same data file (its judge recorded the file's sha256)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.cli import app


def _board(out: Path, *dirs: Path) -> tuple[dict[str, Any], str]:
    result = CliRunner().invoke(app, ["board", *map(str, dirs), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return json.loads((out / "board.json").read_text()), result.output


def _summary(folder: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((folder / "summary.json").read_text())
    return loaded


def _predictions(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "predictions.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(
    ("benchmark", "unjudged", "judged", "questions"),
    [("longmemeval", "lme-unjudged", "lme-k20", 10), ("beam", "beam-unjudged", "beam-k10", 40)],
)
def test_an_unjudged_run_gets_a_row_with_its_answers_cost_and_signature(
    made: dict[str, Path],
    tmp_path: Path,
    benchmark: str,
    unjudged: str,
    judged: str,
    questions: int,
) -> None:
    folder = made[unjudged]
    assert not (folder / "scores.jsonl").exists() and "judge" not in _summary(folder)
    board, output = _board(tmp_path, made[judged], folder)
    judged_group, group = board["groups"]
    assert [r["folder"] for r in group["rows"]] == [str(folder)]
    assert group["identity"]["benchmark"] == benchmark
    assert group["identity"]["judge_signature"] is None and group["headline"] is None
    # the same data file and questions as the judged run: only the judge sets them apart
    assert group["identity"]["questions_sha256"] == judged_group["identity"]["questions_sha256"]
    assert board["groups_differ_in"] == ["judge"]
    (row,) = group["rows"]
    summary, predictions = _summary(folder), _predictions(folder)
    assert len(predictions) == questions
    assert (row["questions"], row["answered"], row["failed"]) == (questions, questions, 0)
    assert row["metrics"] == {} and row["judged"] is False and row["judge_cost_usd"] is None
    assert row["run_signature"] == summary["run"]["signature"]
    assert row["signature"]["answer"] == "fake-answerer"
    # answers from the fake provider's unpriced model: cost not known, said as n/a
    assert summary["run"]["answer_calls"]["cost_usd"] is None and row["answer_cost_usd"] is None
    assert row["ingestion_cost_usd"] == 0.0  # bm25 made no priced call
    page = (tmp_path / "board.md").read_text()
    title = f"## Group 2: {benchmark}, full, all questions; not judged; not ranked"
    assert title in page
    line = next(x for x in page.splitlines() if str(folder) in x and "fake-answerer" in x)
    assert "| – |" in line and "| not judged |" in line and f"{questions} of {questions}" in line
    assert "Group 2: 1 row, not judged, not ranked" in " ".join(output.split())


def test_a_judged_answers_file_is_grouped_with_the_runs_of_its_data_file(
    made: dict[str, Path], tmp_path: Path
) -> None:
    answers = _summary(made["lme-answers"])
    assert "run" not in answers and "dataset" not in answers  # only its judge names the file
    sha = answers["judge"]["dataset"]["sha256"]
    assert sha == _summary(made["lme-k20"])["run"]["dataset"]["sha256"]
    board, _ = _board(tmp_path, made["lme-k20"], made["lme-answers"], made["lme-k1"])
    (group,) = board["groups"]
    assert group["identity"]["dataset_sha256_prefix"] == sha[:12]
    assert group["aspects"]["data file"] == f"sha256 {sha[:12]}…"
    by_folder = {r["folder"]: r for r in group["rows"]}
    assert set(by_folder) == {str(made[k]) for k in ("lme-k20", "lme-answers", "lme-k1")}
    # the same answers judged the same way: the same score, tied with the run that made them
    run, file = by_folder[str(made["lme-k20"])], by_folder[str(made["lme-answers"])]
    head = group["headline"]
    assert file["metrics"][head]["overall"] == run["metrics"][head]["overall"]
    assert file["rank"] == run["rank"] == 1
    assert file["signature"] == {"imported": None}
    page = (tmp_path / "board.md").read_text()
    line = next(x for x in page.splitlines() if x.count(str(made["lme-answers"])) and "[" in x)
    assert "| **imported** |" in line and "None" not in line


def test_charts_say_each_benchmarks_own_word_and_counts_agree_in_number(
    made: dict[str, Path], tmp_path: Path
) -> None:
    _, output = _board(tmp_path, made["lme-k20"], made["lme-k1"], made["beam-k1"], made["locomo"])
    html = (tmp_path / "board.html").read_text()
    assert "Group 1: J, missing = wrong by type (top 2, 95 % CI)" in html
    assert "Group 2: Mean of abilities by ability (top 1, 95 % CI)" in html
    assert "Group 3: F1 (official LoCoMo) by category (top 1, 95 % CI)" in html
    text = " ".join(output.split())
    assert "Group 1: 2 rows, leader" in text and "Group 2: 1 row, leader" in text
    assert "1 rows" not in text and "1 rows" not in html
    page = (tmp_path / "board.md").read_text()
    assert "4 results folders, 4 rows in 3 comparable groups." in page
