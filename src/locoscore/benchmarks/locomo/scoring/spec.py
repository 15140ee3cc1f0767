"""The seed's specified F1 variant (Phase 04 spec), under the seed's own names.

lowercase -> drop a/an/the -> drop punctuation (keep letters, digits, spaces) -> collapse
whitespace -> Porter stem -> multiset overlap. Unlike the official scorer, two empty
answers agree perfectly (1.0).
"""

from __future__ import annotations

import re
from collections import Counter

from locoscore.stem import porter_stem

__all__ = ["compute_token_f1", "normalize_answer", "porter_stem", "tokenize"]

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_NOT_WORD = re.compile(r"[^\w\s]|_")


def normalize_answer(text: str) -> str:
    text = _ARTICLES.sub(" ", text.lower())
    text = _NOT_WORD.sub("", text)
    return " ".join(text.split())


def tokenize(text: str) -> list[str]:
    """Normalised, stemmed tokens."""
    return [porter_stem(token) for token in normalize_answer(text).split()]


def compute_token_f1(prediction: str, ground_truth: str) -> float:
    pred_tokens = tokenize(prediction)
    gold_tokens = tokenize(ground_truth)
    if not pred_tokens and not gold_tokens:
        return 1.0
    overlap = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    precision = overlap / len(pred_tokens) if pred_tokens else 0.0
    recall = overlap / len(gold_tokens) if gold_tokens else 0.0
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)
