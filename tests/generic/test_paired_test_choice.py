"""The generic `compare` tests right/wrong scores with McNemar and graded ones (a partial
credit, a mean over judge runs) with Wilcoxon: a 0.5 cut would call a half-right answer
right and hide the difference."""

from __future__ import annotations

from locoscore.generic.paired_compare import paired_rows, paired_test_for


def test_right_wrong_scores_get_mcnemar_and_graded_ones_wilcoxon() -> None:
    assert paired_test_for([0.0, 1.0, 1.0, 0.0]) == "mcnemar"
    assert paired_test_for([0.0, 1.0, 0.5]) == "wilcoxon"
    assert paired_test_for([0.25, 0.75]) == "wilcoxon"


def test_all_partial_against_mostly_right_is_a_difference_wilcoxon_sees() -> None:
    """A: nine answers each half right (0.5); B: seven right, two half right. Cut at 0.5
    both are "all right" (McNemar p = 1); the paired differences are 0.5 seven times and
    0 twice: Wilcoxon on the seven non-zero ranks, all positive, p = 2 / 2^7 = 0.015625
    (exact) or its normal approximation, below 0.05 either way."""
    ids = [f"q{i}" for i in range(9)]
    a = dict.fromkeys(ids, 0.5)
    b = {q: (1.0 if i < 7 else 0.5) for i, q in enumerate(ids)}
    scores = [*a.values(), *b.values()]
    test = paired_test_for(scores)
    row = paired_rows({"overall": ids}, a.__getitem__, b.__getitem__, test)["overall"]
    assert test == "wilcoxon"
    assert row["a"] == 50.0 and round(row["b"], 4) == round(100 * 8 / 9, 4)
    assert row["wilcoxon_p"] < 0.05
    cut = paired_rows({"overall": ids}, a.__getitem__, b.__getitem__, "mcnemar")["overall"]
    assert cut["mcnemar_p"] == 1.0  # what the 0.5 cut said: no difference at all
