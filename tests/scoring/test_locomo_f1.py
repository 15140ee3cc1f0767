"""The official LoCoMo F1 rules, each with a hand-worked expectation."""

from __future__ import annotations

import pytest

from locoscore.benchmarks.locomo.scoring.locomo import (
    f1_single_locomo,
    normalize_answer_locomo,
    score_f1_locomo,
)


def test_normalisation_drops_commas_punctuation_articles_and_the_word_and() -> None:
    assert normalize_answer_locomo("The cat, and the dog!") == "cat dog"


def test_normalisation_removes_commas_before_splitting_numbers() -> None:
    # "1,000" -> "1000" (comma deleted first), not "1 000"
    assert normalize_answer_locomo("1,000 miles") == "1000 miles"


def test_stemming_makes_inflections_match() -> None:
    # running->run, dogs->dog, runs->run: identical multisets
    assert f1_single_locomo("running dogs", "the dog runs") == 1.0


def test_partial_overlap_precision_and_recall() -> None:
    # pred tokens cat sat on mat (4), gold cat sat (2): overlap 2, P=1/2, R=1, F1=2/3
    assert f1_single_locomo("cat sat on mat", "cat sat") == pytest.approx(2 / 3, abs=1e-15)


def test_overlap_counts_repeated_tokens_as_a_multiset() -> None:
    # dog x3 vs dog x1: overlap 1, P=1/3, R=1, F1=0.5
    assert f1_single_locomo("dog dog dog", "dog") == 0.5


def test_empty_against_empty_scores_zero() -> None:
    assert f1_single_locomo("", "") == 0.0
    assert f1_single_locomo("the", "a") == 0.0  # both normalise to nothing


def test_category_1_mean_over_gold_parts_of_best_predicted_part() -> None:
    # gold parts London(1.0 via 'London'), Berlin(0), Paris(1.0 via 'Paris'): mean 2/3
    assert score_f1_locomo("Paris, London", "London, Berlin, Paris", 1) == pytest.approx(2 / 3)


def test_category_1_single_prediction_against_two_gold_parts() -> None:
    # 'red car' matches exactly, 'blue bike' gets 0 -> 0.5
    assert score_f1_locomo("a red car", "red car, blue bike", 1) == 0.5


def test_commas_do_not_split_outside_category_1() -> None:
    # category 4: commas are deleted, tokens {paris, london} on both sides
    assert score_f1_locomo("Paris, London", "London, Paris", 4) == 1.0
    # the same strings under category 1: each gold part finds its twin
    assert score_f1_locomo("Paris, London", "London, Paris", 1) == 1.0


def test_category_3_uses_gold_before_first_semicolon() -> None:
    assert score_f1_locomo("likely yes", "Likely yes; she mentions it often", 3) == 1.0
    # under category 4 the full gold counts: overlap 2, P=1, R=2/6 -> 0.5
    assert score_f1_locomo("likely yes", "Likely yes; she mentions it often", 4) == 0.5


@pytest.mark.parametrize(
    ("prediction", "expected"),
    [
        ("Not mentioned in the conversation", 1.0),
        ("No information available.", 1.0),
        ("NOT MENTIONED", 1.0),
        ("She went to Paris", 0.0),
        ("There is no information", 0.0),
    ],
)
def test_category_5_detects_abstention_phrases(prediction: str, expected: float) -> None:
    assert score_f1_locomo(prediction, "ignored gold", 5) == expected


def test_int_gold_is_scored_as_its_string() -> None:
    assert score_f1_locomo("2022", 2022, 2) == 1.0
    assert score_f1_locomo("in 2022", 2022, 2) == pytest.approx(2 / 3)


def test_scores_are_python_floats() -> None:
    assert type(score_f1_locomo("a b", "a b", 1)) is float
    assert type(score_f1_locomo("x", "y", 5)) is float
