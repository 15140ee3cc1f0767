"""Means that do not depend on the interpreter: left-to-right addition on every Python."""

from __future__ import annotations

from locoscore.summation import ordered_mean, ordered_sum


def test_the_sum_adds_left_to_right_without_compensation() -> None:
    # 1e16 + 1.0 rounds back to 1e16 in double precision, so a left-to-right sum loses the
    # 1.0; a compensated sum (Python 3.12+'s sum(), math.fsum) keeps it and gives 1.0
    assert ordered_sum([1e16, 1.0, -1e16]) == 0.0
    assert ordered_sum([1.0, 1e16, -1e16]) == 0.0
    assert ordered_sum([1e16, -1e16, 1.0]) == 1.0


def test_the_mean_is_the_ordered_sum_over_the_count() -> None:
    assert ordered_mean([0.1, 0.2, 0.3]) == ((0.1 + 0.2) + 0.3) / 3
    assert ordered_mean([0.5]) == 0.5
