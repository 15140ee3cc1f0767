"""`report.numbers.mean_ci`: a summary block's mean with its interval, as reports and
command lines print it."""

from __future__ import annotations

from locoscore.report.numbers import DASH, mean_ci

BLOCK = {"mean": 62.54, "ci95": [55.0, 70.06], "count": 40}


def test_a_mean_is_written_with_its_interval_at_one_decimal() -> None:
    assert mean_ci(BLOCK) == "62.5 [55.0, 70.1]"


def test_the_count_is_added_when_asked() -> None:
    assert mean_ci(BLOCK, count=True) == "62.5 [55.0, 70.1] (n=40)"


def test_a_block_without_a_mean_is_the_missing_mark() -> None:
    assert mean_ci(None) == DASH
    assert mean_ci({"mean": None, "ci95": None, "count": 0}, "n/a", count=True) == "n/a"
