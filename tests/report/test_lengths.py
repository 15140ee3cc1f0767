"""Answer length in words: per category and overall, in summary.json and in every report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from report_helpers import base_rows, write_folder

from locoscore.benchmarks.locomo import LOCOMO
from locoscore.benchmarks.locomo.categories import GROUPS
from locoscore.benchmarks.locomo.report_parts import build_reports
from locoscore.generic.answer_lengths import answer_lengths, answer_words, length_ratio_warning


@pytest.mark.parametrize(
    ("prediction", "words"),
    [
        ("Lisbon", 1),
        ("  moved to\tLisbon \n in 2022 ", 5),
        ("", 0),
        ("   ", 0),
        (None, 0),
    ],
)
def test_words_are_whitespace_separated_runs(prediction: str | None, words: int) -> None:
    assert answer_words(prediction) == words


def test_mean_and_median_per_category_and_overall() -> None:
    rows = [
        {"category": 4, "prediction": "a"},
        {"category": 4, "prediction": "a b"},
        {"category": 4, "prediction": "a b c"},
        {"category": 4, "prediction": " ".join("x" * 10)},
        {"category": 1, "prediction": ""},
        {"category": 1, "prediction": "one two three four five"},
    ]
    lengths = answer_lengths(rows, GROUPS)
    assert lengths is not None
    single_hop, multi_hop = lengths.by_category[4], lengths.by_category[1]
    assert (single_hop.n, single_hop.mean, single_hop.median) == (4, 4.0, 2.5)  # 1 2 3 10
    # an empty prediction is no answer (a failed call): not counted as 0 words
    assert (multi_hop.n, multi_hop.mean, multi_hop.median) == (1, 5.0, 5.0)  # 5
    assert list(lengths.by_category) == [4, 1]  # the LoCoMo paper's column order
    overall = lengths.overall  # 1 2 3 5 10
    assert (overall.n, overall.mean, overall.median) == (5, 4.2, 3.0)


def test_summary_and_reports_carry_answer_length(tmp_path: Path) -> None:
    rows = base_rows(conversations=1)  # categories 4 4 4 1 1 2 2 3 5 5
    for k, row in enumerate(rows):
        row["prediction"] = " ".join(["w"] * (k + 1))  # question k has k + 1 words
    folder = write_folder(tmp_path / "run", rows)
    build_reports(folder, LOCOMO)
    section = json.loads((folder / "summary.json").read_text())["report"]["answer_length"]
    assert section["unit"] == "whitespace-separated words of the prediction"
    assert section["overall"] == {"n": 10, "mean": 5.5, "median": 5.5}
    assert section["by_category"] == {
        "4": {"n": 3, "mean": 2.0, "median": 2.0},  # 1 2 3
        "1": {"n": 2, "mean": 4.5, "median": 4.5},  # 4 5
        "2": {"n": 2, "mean": 6.5, "median": 6.5},  # 6 7
        "3": {"n": 1, "mean": 8.0, "median": 8.0},  # 8
        "5": {"n": 2, "mean": 9.5, "median": 9.5},  # 9 10
    }
    md = (folder / "report.md").read_text()
    assert "| single-hop (4) | 3 | 2.0 | 2.0 |" in md
    assert "| **overall** | **10** | **5.5** | **5.5** |" in md
    assert "<th>mean words</th>" in (folder / "report.html").read_text()


@pytest.mark.parametrize(
    ("mean_a", "mean_b", "longer"),
    [(10.0, 20.0, None), (10.0, 20.5, "B"), (30.0, 12.0, "A"), (0.0, 0.0, None), (0.0, 3.0, "B")],
)
def test_compare_warns_beyond_twice_the_mean_length(
    mean_a: float, mean_b: float, longer: str | None
) -> None:
    warning = length_ratio_warning(mean_a, mean_b)
    if longer is None:
        assert warning is None
    else:
        assert warning is not None and f"{longer}'s answers are longer" in warning
