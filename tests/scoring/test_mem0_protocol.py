"""Mem0's F1 (set overlap) and BLEU-1 (NLTK), with hand-worked values."""

from __future__ import annotations

import math

import pytest

from locoscore.benchmarks.locomo.scoring.mem0 import bleu1, score_f1_mem0, word_tokenize


def test_f1_uses_set_overlap_without_articles_removed() -> None:
    # {the, cat, sat} vs {the, cat}: common 2, P=2/3, R=1 -> F1 = 0.8
    assert score_f1_mem0("The cat sat.", "the cat") == pytest.approx(0.8)


def test_f1_ignores_duplicates() -> None:
    # {cat, dog} vs {cat}: P=1/2, R=1 -> 2/3 (a multiset would give 0.5)
    assert score_f1_mem0("cat cat dog", "cat") == pytest.approx(2 / 3)


def test_f1_splits_on_the_four_marks_only() -> None:
    assert score_f1_mem0("yes!", "Yes") == 1.0
    assert score_f1_mem0("Paris,London", "paris london") == 1.0
    assert score_f1_mem0("it's", "its") == 0.0  # apostrophes are kept


def test_f1_does_not_stem() -> None:
    assert score_f1_mem0("runs", "run") == 0.0


def test_f1_empty_side_scores_zero() -> None:
    assert score_f1_mem0("", "cat") == 0.0
    assert score_f1_mem0("...", "cat") == 0.0


def test_f1_int_gold() -> None:
    assert score_f1_mem0("2022", 2022) == 1.0


def test_bleu1_clipped_unigram_precision_without_brevity_penalty() -> None:
    # 6 predicted tokens; the(2, clipped at 2), cat, on, mat match: 5/6; equal lengths: BP = 1
    assert bleu1("the cat sat on the mat", "the cat is on the mat") == pytest.approx(5 / 6)


def test_bleu1_brevity_penalty() -> None:
    # precision 1/1, c=1, r=3: BP = exp(1 - 3) = e^-2
    assert bleu1("cat", "the cat sat") == pytest.approx(math.exp(-2))


def test_bleu1_tokenises_commas_as_tokens() -> None:
    # ref: 19 | january | , | 2023 (4 tokens); pred 3 tokens all match: BP = exp(1 - 4/3)
    assert bleu1("19 January 2023", "19 January, 2023") == pytest.approx(math.exp(-1 / 3))


def test_bleu1_no_overlap_is_smoothed_near_zero() -> None:
    assert 0 <= bleu1("dog", "cat") < 1e-6


def test_word_tokenize_splits_sentences_before_words() -> None:
    # Punkt splits the two sentences, so the first period becomes its own token.
    assert word_tokenize("Hello world. Bye now.") == ["Hello", "world", ".", "Bye", "now", "."]


def test_word_tokenize_keeps_known_abbreviations() -> None:
    assert word_tokenize("Dr. Smith arrived.") == ["Dr.", "Smith", "arrived", "."]


def test_word_tokenize_treebank_contractions_and_quotes() -> None:
    assert word_tokenize("she can't go") == ["she", "ca", "n't", "go"]
