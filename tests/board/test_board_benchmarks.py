"""`locoscore board` on LongMemEval and BEAM folders: read through each benchmark's own
`board_row`, one comparable group per benchmark, ranked by its headline (LongMemEval: overall
J with missing answers counted wrong; BEAM: the mean of the ten abilities), never mixed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore import stats
from locoscore.benchmarks.beam import ABILITY_NAMES
from locoscore.cli import app


def _board(out: Path, *dirs: Path) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["board", *map(str, dirs), "--out", str(out)])
    assert result.exit_code == 0, result.output
    loaded: dict[str, Any] = json.loads((out / "board.json").read_text())
    return loaded


def _summary(folder: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((folder / "summary.json").read_text())
    return loaded


def _scores(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "scores.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def board(made: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The board of the parent of every judged run (found under it: sorted by path)."""
    return _board(tmp_path_factory.mktemp("board-out"), made["locomo"].parent)


def _group(board: dict[str, Any], benchmark: str) -> dict[str, Any]:
    (group,) = [g for g in board["groups"] if g["identity"]["benchmark"] == benchmark]
    return group


def _row(group: dict[str, Any], folder: Path) -> dict[str, Any]:
    (row,) = [r for r in group["rows"] if r["folder"] == str(folder)]
    return row


def test_each_benchmark_is_its_own_group_ranked_by_its_headline(
    board: dict[str, Any], made: dict[str, Path]
) -> None:
    by_benchmark = {g["identity"]["benchmark"]: g for g in board["groups"]}
    assert sorted(by_benchmark) == ["beam", "locomo", "longmemeval"]
    assert "benchmark" in board["groups_differ_in"]
    members = {b: {r["folder"] for r in g["rows"]} for b, g in by_benchmark.items()}
    assert members == {
        "beam": {str(made["beam-k1"]), str(made["beam-k10"])},
        "locomo": {str(made["locomo"])},
        "longmemeval": {str(made["lme-k1"]), str(made["lme-k20"])},
    }
    assert by_benchmark["longmemeval"]["headline"] == "lme_j_missing_wrong"
    assert by_benchmark["beam"]["headline"] == "beam_mean_of_abilities"
    for benchmark in ("longmemeval", "beam"):
        group = by_benchmark[benchmark]
        means = [r["metrics"][group["headline"]]["overall"]["mean"] for r in group["rows"]]
        assert means == sorted(means, reverse=True) and means[0] > means[1]
        judge = _summary(Path(group["rows"][0]["folder"]))["judge"]
        assert group["identity"]["judge_signature"] == judge["signature"]
        assert (
            group["identity"]["dataset_sha256_prefix"]
            == (_summary(Path(group["rows"][0]["folder"]))["run"]["dataset"]["sha256"][:12])
        )
    # the top-k 20 LongMemEval run finds gold the top-1 run does not
    assert by_benchmark["longmemeval"]["rows"][0]["folder"] == str(made["lme-k20"])


def test_longmemeval_rows_equal_summary_json(board: dict[str, Any], made: dict[str, Path]) -> None:
    group = _group(board, "longmemeval")
    for name in ("lme-k1", "lme-k20"):
        row, judge = _row(group, made[name]), _summary(made[name])["judge"]
        strict, submitted = judge["missing_counts_as_wrong"], judge["over_submitted"]
        head = row["metrics"]["lme_j_missing_wrong"]
        assert head["overall"] == {
            "mean": strict["overall"]["accuracy"],
            "ci95": dict(zip(("low", "high"), strict["overall"]["ci95"], strict=True)),
            "n": strict["overall"]["count"],
        }
        for key, cell in strict["by_type"].items():
            assert head["by_category"][key]["mean"] == cell["accuracy"]
        assert head["by_category"]["abstention"]["mean"] == strict["abstention"]["accuracy"]
        task = row["metrics"]["lme_j_task_averaged"]["overall"]["mean"]
        assert task == strict["task_averaged"]["accuracy"]
        over = row["metrics"]["lme_j_over_submitted"]["overall"]["mean"]
        assert over == submitted["overall"]["accuracy"]
        assert (row["questions"], row["answered"], row["failed"]) == (10, 10, 0)


def test_beam_rows_equal_summary_json(board: dict[str, Any], made: dict[str, Path]) -> None:
    group = _group(board, "beam")
    for name in ("beam-k1", "beam-k10"):
        row, judge = _row(group, made[name]), _summary(made[name])["judge"]
        head = row["metrics"]["beam_mean_of_abilities"]
        assert head["overall"]["mean"] == pytest.approx(100 * judge["mean_of_abilities"])
        assert head["overall"]["ci95"] is None  # summary.json records none: none invented
        assert len(head["by_category"]) == 10
        for key, cell in judge["per_ability"].items():
            shown = head["by_category"][ABILITY_NAMES[key]]
            assert shown["mean"] == pytest.approx(100 * cell["mean"]) and shown["n"] == cell["n"]
        weighted = row["metrics"]["beam_question_weighted"]["overall"]
        assert weighted["mean"] == pytest.approx(100 * judge["question_weighted"])
        low, high = judge["question_weighted_ci95"]
        assert weighted["ci95"] == {
            "low": pytest.approx(100 * low),
            "high": pytest.approx(100 * high),
        }
        assert row["judge_cost_usd"] == judge["cost_usd"] > 0
        assert (row["questions"], row["answered"], row["failed"]) == (40, 40, 0)


@pytest.mark.parametrize(("benchmark", "column"), [("longmemeval", "j"), ("beam", "beam_score")])
def test_each_row_is_tested_against_its_leader_on_shared_questions(
    board: dict[str, Any], benchmark: str, column: str
) -> None:
    leader, other = _group(board, benchmark)["rows"]
    assert leader["rank"] == 1 and leader["versus_leader"] is None
    a, b = (
        {r["question_id"]: r[column] for r in _scores(Path(x["folder"]))} for x in (leader, other)
    )
    # every question answered by both; equal differences stay ties
    differences = [round(100 * (b[k] - a[k]), 6) for k in sorted(a)]
    versus = other["versus_leader"]
    assert versus["n"] == len(a)
    assert versus["difference"] == pytest.approx(sum(differences) / len(differences))
    assert versus["wilcoxon_p"] == pytest.approx(stats.wilcoxon_signed_rank(differences).p_value)
    assert versus["holm_p"] == versus["wilcoxon_p"]  # one test in the group
    assert (
        versus["ci95_bootstrap"]["low"] <= versus["difference"] <= versus["ci95_bootstrap"]["high"]
    )
    assert other["rank"] == (1 if versus["indistinguishable"] else 2)


def test_three_benchmarks_given_together_make_three_tables(
    made: dict[str, Path], tmp_path: Path
) -> None:
    dirs = (made["lme-k20"], made["locomo"], made["beam-k10"])
    board = _board(tmp_path, *dirs)
    assert [g["identity"]["benchmark"] for g in board["groups"]] == [
        "longmemeval", "locomo", "beam",
    ]  # fmt: skip
    assert [[r["folder"] for r in g["rows"]] for g in board["groups"]] == [[str(d)] for d in dirs]
    page = (tmp_path / "board.md").read_text()
    assert page.count("### Scores") == 3
    assert "ranked by J, missing = wrong" in page and "ranked by Mean of abilities" in page


def test_a_corrupt_benchmark_summary_is_refused(made: dict[str, Path], tmp_path: Path) -> None:
    folder = tmp_path / "corrupt"
    shutil.copytree(made["lme-k1"], folder)
    summary = _summary(folder)
    del summary["judge"]["missing_counts_as_wrong"]
    (folder / "summary.json").write_text(json.dumps(summary))
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["board", str(made["lme-k20"]), str(folder), "--out", str(out)]
    )
    assert result.exit_code == 2
    line = " ".join(result.output.split())
    assert str(folder / "summary.json") in line and "judge.missing_counts_as_wrong" in line
    assert "Traceback" not in result.output and not out.exists()
