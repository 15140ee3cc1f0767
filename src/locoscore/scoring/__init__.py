"""Lexical scoring: the `locomo`, `mem0` and `spec` protocols."""

from locoscore.scoring.locomo import normalize_answer_locomo, score_f1_locomo
from locoscore.scoring.mem0 import bleu1, score_f1_mem0, word_tokenize
from locoscore.scoring.protocols import PROTOCOLS, LexicalProtocol, get_protocol
from locoscore.scoring.results import (
    aggregate_f1_by_category,
    compute_overall_f1,
    score_f1,
    score_results_f1,
)
from locoscore.scoring.spec import compute_token_f1, normalize_answer, porter_stem, tokenize

__all__ = [
    "PROTOCOLS",
    "LexicalProtocol",
    "aggregate_f1_by_category",
    "bleu1",
    "compute_overall_f1",
    "compute_token_f1",
    "get_protocol",
    "normalize_answer",
    "normalize_answer_locomo",
    "porter_stem",
    "score_f1",
    "score_f1_locomo",
    "score_f1_mem0",
    "score_results_f1",
    "tokenize",
    "word_tokenize",
]
