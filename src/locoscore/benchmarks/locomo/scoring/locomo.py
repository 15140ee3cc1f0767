"""The LoCoMo paper's official F1 (snap-research/locomo `task_eval/evaluation.py`), bit-exact.

Rules, in words (see the reference notes, §3): drop commas; lowercase; drop
`string.punctuation`; replace the words a/an/the/and with a space; collapse whitespace;
Porter-stem each token; multiset overlap, 0 when nothing overlaps (even empty vs empty).
Per category: 1 = comma-split partial F1 (mean over gold parts of the best predicted part);
2, 4 = plain F1; 3 = gold up to the first ';'; 5 = phrase detection on the prediction.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from functools import lru_cache

import numpy as np

from locoscore.stem import porter_stem

_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
ABSTENTION_PHRASES = ("no information available", "not mentioned")


def normalize_answer_locomo(text: str) -> str:
    text = text.replace(",", "")
    text = text.lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


@lru_cache(maxsize=1 << 16)
def _stemmed_bag(text: str) -> tuple[Counter[str], int]:
    """Stemmed-token multiset of a text and its token count (pure, so memoised per text:
    gold strings recur for every system scored, predictions for every protocol)."""
    tokens = [porter_stem(token) for token in normalize_answer_locomo(text).split()]
    return Counter(tokens), len(tokens)


def f1_single_locomo(prediction: str, gold: str) -> float:
    """Token F1 of one prediction against one gold string."""
    pred_bag, pred_len = _stemmed_bag(prediction)
    gold_bag, gold_len = _stemmed_bag(gold)
    # multiset intersection size, as `sum((Counter & Counter).values())` but without
    # building the intersection Counter
    overlap = 0
    for token, count in pred_bag.items():
        other = gold_bag.get(token)
        if other:
            overlap += count if count < other else other
    if overlap == 0:
        return 0.0
    precision = overlap / pred_len
    recall = overlap / gold_len
    return (2 * precision * recall) / (precision + recall)


def f1_multi_answer_locomo(prediction: str, gold: str) -> float:
    """Category 1: each comma-separated gold part takes its best predicted part; mean of those."""
    predictions = [part.strip() for part in prediction.split(",")]
    golds = [part.strip() for part in gold.split(",")]
    best = [max(f1_single_locomo(p, g) for p in predictions) for g in golds]
    # numpy's mean (pairwise summation) keeps the result bit-identical to the official scorer.
    return float(np.mean(best))


def is_abstention(prediction: str) -> bool:
    lowered = prediction.lower()
    return any(phrase in lowered for phrase in ABSTENTION_PHRASES)


def score_f1_locomo(prediction: str, answer: str | int, category: int) -> float:
    """One question's score under the official LoCoMo rules (0-1)."""
    gold = str(answer)
    if category == 5:
        return 1.0 if is_abstention(prediction) else 0.0
    if category == 1:
        return f1_multi_answer_locomo(prediction, gold)
    if category == 3:
        gold = gold.split(";")[0].strip()
    return f1_single_locomo(prediction, gold)
