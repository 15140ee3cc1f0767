"""A plain, unmemoised implementation of the official LoCoMo F1 rules.

Written from the rules in words (docs: LoCoMo scoring, section 3), in the shape the official
scorer has: a fresh stemmer call for every token on every call, numpy's mean for category 1.
Used as the reference in `bench/f1_throughput.py` and in the parity tests.
"""

from __future__ import annotations

import re
import string
from collections import Counter

import numpy as np
from nltk.stem import PorterStemmer

_stemmer = PorterStemmer()


def _normalise(text: str) -> str:
    text = text.replace(",", "")
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the|and)\b", " ", text)
    return " ".join(text.split())


def _f1(prediction: str, gold: str) -> float:
    pred = [_stemmer.stem(w) for w in _normalise(prediction).split()]
    ref = [_stemmer.stem(w) for w in _normalise(gold).split()]
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0
    p = 1.0 * same / len(pred)
    r = 1.0 * same / len(ref)
    return (2 * p * r) / (p + r)


def _f1_multi(prediction: str, gold: str) -> float:
    preds = [p.strip() for p in prediction.split(",")]
    golds = [g.strip() for g in gold.split(",")]
    return np.mean([max([_f1(p, g) for p in preds]) for g in golds])  # type: ignore[return-value]


def reference_score(prediction: str, answer: object, category: int) -> float:
    gold = str(answer)
    if category == 3:
        gold = gold.split(";")[0].strip()
    if category in (2, 3, 4):
        return _f1(prediction, gold)
    if category == 1:
        return _f1_multi(prediction, gold)
    low = prediction.lower()
    return 1 if ("no information available" in low or "not mentioned" in low) else 0
