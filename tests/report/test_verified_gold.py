"""The verified-gold view of a results folder whose summary.json records gold errata:
hand-computed n, ceilings and means on the questions whose gold stands."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from report_helpers import base_rows, folder_with_errata, write_folder
from typer.testing import CliRunner

from locoscore.benchmarks.locomo import LOCOMO
from locoscore.benchmarks.locomo.report_parts import build_reports
from locoscore.cli import app

runner = CliRunner()


@pytest.fixture
def view(tmp_path: Path) -> dict[str, Any]:
    folder = folder_with_errata(tmp_path / "run")
    build_reports(folder, LOCOMO)
    section: dict[str, Any] = json.loads((folder / "summary.json").read_text())["report"]
    return section["verified_gold"]


def test_three_questions_with_a_wrong_gold_leave_the_view_and_the_citation_one_stays(
    view: dict[str, Any],
) -> None:
    assert (view["questions"], view["excluded"]) == (17, 3)
    assert view["excluded_by_category"] == {"4": 1, "1": 1, "2": 1, "3": 0, "5": 0}
    assert view["errata_sha256"] == "e" * 64
    f1 = view["metrics"]["f1_locomo"]
    assert f1["overall"]["n"] == 17
    assert {c: cell["n"] for c, cell in f1["by_category"].items()} == {
        "4": 5,
        "1": 3,
        "2": 3,
        "3": 2,
        "5": 4,
    }


def test_the_ceiling_is_the_share_of_questions_whose_gold_stands(view: dict[str, Any]) -> None:
    ceiling = view["ceiling"]
    by_category = {
        c: (x["n"], x["gold_wrong"], x["citation_only"]) for c, x in ceiling["by_category"].items()
    }
    assert by_category == {
        "4": (6, 1, 1),
        "1": (4, 1, 0),
        "2": (4, 1, 0),
        "3": (2, 0, 0),
        "5": (4, 0, 0),
    }
    assert ceiling["by_category"]["4"]["ceiling"] == pytest.approx(100 * 5 / 6)
    assert ceiling["by_category"]["1"]["ceiling"] == 75.0
    assert ceiling["by_category"]["3"]["ceiling"] == 100.0
    assert ceiling["overall_no_adversarial"]["ceiling"] == pytest.approx(100 * 13 / 16)
    assert ceiling["overall_all"]["ceiling"] == 85.0


def test_every_metric_is_recomputed_on_the_kept_questions(view: dict[str, Any]) -> None:
    f1 = view["metrics"]["f1_locomo"]
    # f1_locomo of question k is (k % 5) / 4: the 20 questions sum to 10; the excluded
    # k = 0, 3, 15 carry 0, 0.75 and 0, so 9.25 over 17 kept questions
    assert f1["overall"]["mean"] == pytest.approx(100 * 9.25 / 17)
    assert f1["by_category"]["4"]["mean"] == pytest.approx(100 * 1.5 / 5)  # k 1, 2, 10, 11, 12
    assert f1["by_category"]["1"]["mean"] == pytest.approx(100 * 2.75 / 3)  # k 4, 13, 14
    assert f1["by_category"]["2"]["mean"] == pytest.approx(100 * 0.5 / 3)  # k 5, 6, 16
    boot = f1["overall"]["ci95_bootstrap"]
    assert boot["low"] < f1["overall"]["mean"] < boot["high"]
    # J (binary, adversarial not judged; k % 4 = 0, 1, 2, 3 give 100, 0, 2/3, 100): the 13
    # kept judged questions are 5 at 100 (k 4 7 11 12 16), 4 at 2/3 (2 6 10 14), 4 at 0
    j = view["metrics"]["j_mean"]
    assert j["overall"]["n"] == 13
    assert j["overall"]["mean"] == pytest.approx((500 + 4 * 200 / 3) / 13)
    assert "run_std" in j["overall"]


def test_the_report_shows_the_view_and_marks_flagged_questions(tmp_path: Path) -> None:
    folder = folder_with_errata(tmp_path / "run")
    build_reports(folder, LOCOMO)
    md = (folder / "report.md").read_text()
    assert "## Verified-gold view (gold errata)" in md
    assert "| single-hop (4) | 6 | 1 | 1 | 83.3 |" in md
    assert "| overall (excl. adversarial) | 16 | 3 | 1 | 81.2 |" in md
    assert "| overall (incl. adversarial) | 20 | 3 | 1 | 85.0 |" in md
    lines = md.splitlines()
    # conv-1#0 (F1 0, J 100) disagrees most; conv-1#1 (J 0) is among the lowest questions
    assert any(
        line.startswith("| conv-1#0 |") and line.endswith("| HALLUCINATION |") for line in lines
    )
    assert any(
        line.startswith("| conv-1#1 |") and line.endswith("| WRONG_CITATION |") for line in lines
    )
    assert any(line.startswith("| conv-2#7 |") and line.endswith("|  |") for line in lines)
    html = (folder / "report.html").read_text()
    assert "Verified-gold view (gold errata)" in html and "HALLUCINATION" in html


def test_scores_csv_names_each_question_gold_error(tmp_path: Path) -> None:
    folder = folder_with_errata(tmp_path / "run")
    build_reports(folder, LOCOMO)
    with (folder / "scores.csv").open() as handle:
        rows = {
            f"{r['sample_id']}#{r['qa_index']}": r["gold_error"] for r in csv.DictReader(handle)
        }
    assert rows["conv-1#0"] == "HALLUCINATION" and rows["conv-1#1"] == "WRONG_CITATION"
    assert rows["conv-1#2"] == ""
    assert sum(1 for v in rows.values() if v) == 4


def test_without_errata_there_is_no_view(tmp_path: Path) -> None:
    rows = base_rows()
    folder = write_folder(tmp_path / "run", rows)
    build_reports(folder, LOCOMO)
    assert "verified_gold" not in json.loads((folder / "summary.json").read_text())["report"]
    assert "Verified-gold" not in (folder / "report.md").read_text()
    assert "gold_error" not in (folder / "scores.csv").read_text().splitlines()[0]


def test_rebuilding_the_report_keeps_the_recorded_view(tmp_path: Path) -> None:
    folder = folder_with_errata(tmp_path / "run")
    build_reports(folder, LOCOMO)
    first = (folder / "report.md").read_text()
    result = runner.invoke(app, ["report", str(folder)])
    assert result.exit_code == 0, result.output
    assert (folder / "report.md").read_text() == first
    assert "(verified gold)" in result.output


def test_a_damaged_errata_record_is_one_line_and_exit_2(tmp_path: Path) -> None:
    folder = folder_with_errata(tmp_path / "run")
    summary = json.loads((folder / "summary.json").read_text())
    summary["errata"]["flagged"] = {"conv-1#0": "TYPO"}
    (folder / "summary.json").write_text(json.dumps(summary))
    result = runner.invoke(app, ["report", str(folder)])
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"error: {folder / 'summary.json'}, field 'errata.flagged': "
        "expected {question key: known error type}"
    )
    assert not (folder / "report.md").exists()
