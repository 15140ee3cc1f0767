"""`locoscore compare`: a known difference is detected; identical inputs give 0, not significant."""

from __future__ import annotations

import copy
import csv
import math
from pathlib import Path

import pytest
from report_helpers import add_judge, base_rows, record_errata, write_folder
from typer.testing import CliRunner

from locoscore.benchmarks.locomo.data.errata import comparison_errata
from locoscore.benchmarks.locomo.parts import PARTS
from locoscore.benchmarks.locomo.report_parts import load_results
from locoscore.cli import app
from locoscore.generic.paired_folders import compare_results, majority_correct

runner = CliRunner()


def _pair(tmp_path: Path, improve: bool) -> tuple[Path, Path]:
    rows_a = base_rows()
    judge_a = add_judge(rows_a, "binary")
    rows_b = copy.deepcopy(rows_a)
    judge_b = copy.deepcopy(judge_a)
    if improve:
        for row in rows_b:
            row["f1_locomo"] = min(1.0, row["f1_locomo"] + 0.25)
            if "j_scores" in row:
                row["j_scores"] = [100.0, 100.0, 100.0]
                row.update(j_mean=100.0, j_std=0.0, j_runs=3, j_failures=0)
    return write_folder(tmp_path / "a", rows_a, judge_a), write_folder(
        tmp_path / "b", rows_b, judge_b
    )


def test_a_known_improvement_is_detected_with_hand_computed_statistics(tmp_path: Path) -> None:
    a, b = _pair(tmp_path, improve=True)
    result = compare_results(PARTS, load_results(a), load_results(b))
    f1 = next(m for m in result.metrics if m.metric.column == "f1_locomo")
    # 16 of 20 questions gain 25 points, 4 were already at 100: mean difference 20.0
    assert f1.overall.difference == pytest.approx(20.0)
    assert f1.overall.ci.low > 0
    # 16 equal positive differences: ranks all 8.5, W+ = 136, mean 68,
    # var = 16*17*33/24 - (16^3 - 16)/48 = 374 - 85 = 289 -> z = 68 / 17 = 4
    assert f1.overall.wilcoxon.w_plus == 136.0
    assert f1.overall.wilcoxon.z == pytest.approx(4.0)
    assert f1.overall.wilcoxon.p_value == pytest.approx(math.erfc(4 / math.sqrt(2)))
    assert f1.overall.significant


def test_binary_j_gets_mcnemar_on_majority_verdicts(tmp_path: Path) -> None:
    a, b = _pair(tmp_path, improve=True)
    result = compare_results(PARTS, load_results(a), load_results(b))
    j = next(m for m in result.metrics if m.metric.column == "j_mean")
    assert j.mcnemar is not None
    # A's majority is wrong only on pattern-1 questions (4 of 16); B is always right
    assert (j.mcnemar.only_a, j.mcnemar.only_b) == (0, 4)
    assert j.mcnemar.p_value == pytest.approx(2 / 16)
    assert 5 not in j.by_category  # adversarial is not judged


def test_identical_inputs_differ_by_zero_and_are_not_significant(tmp_path: Path) -> None:
    a, b = _pair(tmp_path, improve=False)
    result = compare_results(PARTS, load_results(a), load_results(b))
    assert result.paired == 20 and not result.only_in_a and not result.only_in_b
    for mc in result.metrics:
        for cell in [mc.overall, *mc.by_category.values()]:
            assert cell.difference == 0.0
            assert (cell.ci.low, cell.ci.high) == (0.0, 0.0)
            assert cell.wilcoxon.p_value == 1.0 and not cell.significant
        if mc.mcnemar is not None:
            assert mc.mcnemar.p_value == 1.0


def test_missing_questions_are_counted_and_named(tmp_path: Path) -> None:
    rows = base_rows()
    a = write_folder(tmp_path / "a", rows)
    b = write_folder(tmp_path / "b", [r for r in rows if r["sample_id"] != "conv-2"][:-1])
    result = compare_results(PARTS, load_results(a), load_results(b))
    assert result.paired == 9
    assert len(result.only_in_a) == 11 and result.only_in_a[0] == "conv-1#9"
    assert result.only_in_b == []


def test_majority_verdict_counts_successful_runs_and_a_tie_is_not_correct() -> None:
    assert majority_correct([100, 0, 100]) is True
    assert majority_correct([100, 0, None, None]) is False
    assert majority_correct([None]) is None


def test_compare_command_writes_markdown_and_html(tmp_path: Path) -> None:
    a, b = _pair(tmp_path, improve=True)
    out = tmp_path / "cmp"
    result = runner.invoke(app, ["compare", str(a), str(b), "--out", str(out)])
    assert result.exit_code == 0, result.output
    md = (out / "compare.md").read_text()
    assert "| **overall (incl. adversarial)** | **20** | **50.0** | **70.0** | **+20.0**" in md
    assert "McNemar (exact) on majority verdicts: 0 questions correct only in A, 4" in md
    html = (out / "compare.html").read_text()
    assert "<svg " in html and "<script" not in html


def test_compare_with_a_missing_folder_is_exit_2(tmp_path: Path) -> None:
    a, _ = _pair(tmp_path, improve=False)
    result = runner.invoke(app, ["compare", str(a), str(tmp_path / "nope")])
    assert result.exit_code == 2 and "nope" in result.output


def test_j_in_only_one_folder_is_named_in_a_warning(tmp_path: Path) -> None:
    rows = base_rows()
    a = write_folder(tmp_path / "a", copy.deepcopy(rows))
    judge = add_judge(rows, "binary")
    b = write_folder(tmp_path / "b", rows, judge)
    result = compare_results(PARTS, load_results(a), load_results(b))
    assert all(not m.metric.is_judge for m in result.metrics)
    assert any("only B has judge scores" in w for w in result.warnings)


def test_adversarial_j_is_compared_only_when_both_folders_judged_it(tmp_path: Path) -> None:
    rows_a = base_rows()
    judge_a = add_judge(rows_a, "binary")
    rows_b = copy.deepcopy(rows_a)
    for row in rows_a:
        if row["category"] == 5:
            row.update(j_mean=100.0, j_std=0.0, j_runs=3, j_scores=[100.0] * 3, j_failures=0)
    judge_b = copy.deepcopy(judge_a)
    judge_a["include_adversarial"] = True
    a = write_folder(tmp_path / "a", rows_a, judge_a)
    b = write_folder(tmp_path / "b", rows_b, judge_b)
    j = next(
        m
        for m in compare_results(PARTS, load_results(a), load_results(b)).metrics
        if m.metric.is_judge
    )
    assert not j.includes_excluded and j.overall.n == 16


def test_differences_csv_has_each_shared_questions_paired_scores(tmp_path: Path) -> None:
    a, b = _pair(tmp_path, improve=True)
    out = tmp_path / "cmp"
    assert runner.invoke(app, ["compare", str(a), str(b), "--out", str(out)]).exit_code == 0
    with (out / "differences.csv").open() as handle:
        table = list(csv.DictReader(handle))
    assert len(table) == 20
    first = table[0]  # conv-1#0: f1_locomo 0 -> 0.25; J pattern 0 stays 100
    assert (first["sample_id"], first["qa_index"]) == ("conv-1", "0")
    assert float(first["f1_locomo_diff"]) == pytest.approx(25.0)
    assert float(first["j_mean_a"]) == 100.0 and float(first["j_mean_diff"]) == 0.0
    adversarial = next(r for r in table if r["category"] == "5")
    assert adversarial["j_mean_a"] == "" and adversarial["j_mean_diff"] == ""
    mean = sum(float(r["f1_locomo_diff"]) for r in table) / len(table)
    assert mean == pytest.approx(20.0)  # the overall difference in compare.md


def _with_predictions(directory: Path, words: int) -> Path:
    rows = base_rows()
    for row in rows:
        row["prediction"] = " ".join(["word"] * words)
    return write_folder(directory, rows, add_judge(rows, "binary"))


def test_compare_warns_when_one_side_answers_more_than_twice_as_long(tmp_path: Path) -> None:
    a = _with_predictions(tmp_path / "a", 2)
    b = _with_predictions(tmp_path / "b", 5)
    result = runner.invoke(app, ["compare", str(a), str(b), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    expected = (
        "mean answer lengths differ by more than 2x "
        "(A 2.0 words, B 5.0; B's answers are longer: 2.5x)"
    )
    assert expected in " ".join(result.output.split())
    md = (tmp_path / "out" / "compare.md").read_text()
    assert "## Warnings" in md and expected in md
    assert "| **overall** | **20** | **2.0** | **2.0** | **5.0** | **5.0** |" in md


def test_compare_is_silent_about_length_up_to_twice(tmp_path: Path) -> None:
    a = _with_predictions(tmp_path / "a", 2)
    b = _with_predictions(tmp_path / "b", 4)
    result = compare_results(PARTS, load_results(a), load_results(b))
    assert not any("answer lengths" in w for w in result.warnings)
    assert result.answer_lengths is not None
    assert [side.overall.mean for side in result.answer_lengths] == [2.0, 4.0]


def test_verified_gold_compares_again_on_the_questions_whose_gold_stands(tmp_path: Path) -> None:
    a, b = (record_errata(folder) for folder in _pair(tmp_path, improve=True))
    out = tmp_path / "out"
    result = runner.invoke(app, ["compare", str(a), str(b), "--verified-gold", "--out", str(out)])
    assert result.exit_code == 0, result.output
    comparison = compare_results(
        PARTS, load_results(a), load_results(b), comparison_errata(None, load_results(a)).view()
    )
    verified = comparison.subset
    assert verified is not None and (verified.paired, verified.excluded) == (17, 3)
    f1 = next(m for m in verified.metrics if m.metric.column == "f1_locomo")
    # of the 17 kept questions, 13 gain 25 points; k = 4, 9, 14, 19 were already at 100
    assert f1.overall.n == 17
    assert f1.overall.difference == pytest.approx(13 * 25 / 17)
    assert {c: cell.n for c, cell in f1.by_category.items()} == {4: 5, 1: 3, 2: 3, 3: 2, 5: 4}
    md = (out / "compare.md").read_text()
    assert "## Verified-gold view" in md and "### F1 (official LoCoMo) (verified gold)" in md
    assert "Of the 20 shared questions, 3 have a gold answer" in md
    assert 'id="fig-compare-f1_locomo-verified-gold"' in (out / "compare.html").read_text()


def test_verified_gold_without_any_errata_is_one_line_and_exit_2(tmp_path: Path) -> None:
    a, b = _pair(tmp_path, improve=True)
    out = tmp_path / "out"
    result = runner.invoke(app, ["compare", str(a), str(b), "--verified-gold", "--out", str(out)])
    assert result.exit_code == 2
    assert result.output.startswith("error: --verified-gold needs the gold errata")
    assert len(result.output.strip().splitlines()) == 1
    assert not out.exists()


def test_folders_that_recorded_different_errata_are_refused(tmp_path: Path) -> None:
    a, b = _pair(tmp_path, improve=True)
    record_errata(a, sha256="a" * 64)
    record_errata(b, sha256="b" * 64)
    result = runner.invoke(
        app, ["compare", str(a), str(b), "--verified-gold", "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 2
    assert "recorded different errata lists" in result.output
    assert not (tmp_path / "out").exists()


def test_a_folder_that_answered_nothing_compares_with_a_warning_not_a_crash(
    tmp_path: Path,
) -> None:
    """Every prediction of A empty (a system that never answered): the comparison is made,
    A scores 0, and the answer-length table gives way to a warning naming A."""
    rows = base_rows()
    silent = copy.deepcopy(rows)
    for row in silent:
        row["prediction"] = ""
        row["f1_locomo"] = 0.0
    a = write_folder(tmp_path / "a", silent)
    b = write_folder(tmp_path / "b", rows)
    out = tmp_path / "cmp"
    result = runner.invoke(app, ["compare", str(a), str(b), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    text = " ".join(result.output.split())
    assert "answered none of the 20 paired questions (every prediction empty)" in text
    compared = compare_results(PARTS, load_results(a), load_results(b))
    assert compared.answer_lengths is None
    f1 = next(m for m in compared.metrics if m.metric.column == "f1_locomo")
    assert f1.overall.mean_a == 0.0 and f1.overall.n == 20
