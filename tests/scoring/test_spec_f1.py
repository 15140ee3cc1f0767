"""The seed's spec F1 variant: the seed's own test list."""

from __future__ import annotations

import pytest

from locoscore import (
    aggregate_f1_by_category,
    compute_overall_f1,
    compute_token_f1,
    normalize_answer,
    porter_stem,
    tokenize,
)


def test_exact_match_is_one() -> None:
    assert compute_token_f1("the cat sat", "the cat sat") == 1.0


def test_partial_overlap() -> None:
    # "big cat sat" (3) vs "cat sat" (2): overlap 2, P=2/3, R=1 -> 0.8
    assert compute_token_f1("the big cat sat", "the cat sat") == pytest.approx(0.8)


def test_no_overlap_is_zero() -> None:
    assert compute_token_f1("dog", "cat") == 0.0


def test_case_and_punctuation_ignored() -> None:
    assert compute_token_f1("The Cat!", "the cat") == 1.0


def test_articles_removed() -> None:
    assert compute_token_f1("a big dog", "big dog") == 1.0


def test_stemming_gives_partial_credit() -> None:
    # running->run matches runs->run; quickly->quickli vs quick->quick do not: 0.5
    assert compute_token_f1("running quickly", "runs quick") == pytest.approx(0.5)
    assert compute_token_f1("running quickly", "runs quick") > 0


def test_empty_prediction_against_gold_is_zero() -> None:
    assert compute_token_f1("", "the cat") == 0.0


def test_both_empty_is_one() -> None:
    assert compute_token_f1("", "") == 1.0


def test_repeated_articles_vanish_so_both_sides_are_empty() -> None:
    # Articles are removed before counting, so "the the the" vs "the" is empty vs empty: 1.0
    assert compute_token_f1("the the the", "the") == 1.0


def test_repeated_content_words_count_as_a_multiset() -> None:
    # cat x3 vs cat: overlap min(3, 1) = 1, P = 1/3, R = 1 -> 0.5
    assert compute_token_f1("cat cat cat", "cat") == 0.5


def test_helpers() -> None:
    assert normalize_answer("  The  Cat's, hat! ") == "cats hat"
    assert porter_stem("running") == "run"
    assert tokenize("The running dogs") == ["run", "dog"]


def test_category_aggregation_and_overall() -> None:
    scored = [
        {"category": "single-hop", "f1": 0.8},
        {"category": "single-hop", "f1": 0.6},
        {"category": "single-hop", "f1": 1.0},
        {"category": "multi-hop", "f1": 0.5},
        {"category": "multi-hop", "f1": 0.7},
    ]
    by_cat = aggregate_f1_by_category(scored)
    assert by_cat["single-hop"] == {
        "mean": pytest.approx(0.8),
        "count": 3,
        "min": 0.6,
        "max": 1.0,
    }
    assert by_cat["multi-hop"] == {"mean": pytest.approx(0.6), "count": 2, "min": 0.5, "max": 0.7}
    # question-weighted: (0.8+0.6+1.0+0.5+0.7)/5 = 0.72, not the category mean 0.7
    assert compute_overall_f1(scored) == pytest.approx(0.72)
