"""Lexical scoring: the `locomo`, `mem0` and `spec` protocols.

Names are loaded on first use (PEP 562): importing a submodule such as
`locoscore.benchmarks.locomo.scoring.protocols` does not import NLTK through this package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from locoscore.benchmarks.locomo.scoring.locomo import normalize_answer_locomo, score_f1_locomo
    from locoscore.benchmarks.locomo.scoring.mem0 import bleu1, score_f1_mem0, word_tokenize
    from locoscore.benchmarks.locomo.scoring.protocols import (
        PROTOCOLS,
        LexicalProtocol,
        get_protocol,
    )
    from locoscore.benchmarks.locomo.scoring.results import (
        aggregate_f1_by_category,
        compute_overall_f1,
        score_f1,
        score_results_f1,
    )
    from locoscore.benchmarks.locomo.scoring.spec import (
        compute_token_f1,
        normalize_answer,
        porter_stem,
        tokenize,
    )

_HOMES = {
    "normalize_answer_locomo": "locomo",
    "score_f1_locomo": "locomo",
    "bleu1": "mem0",
    "score_f1_mem0": "mem0",
    "word_tokenize": "mem0",
    "PROTOCOLS": "protocols",
    "LexicalProtocol": "protocols",
    "get_protocol": "protocols",
    "aggregate_f1_by_category": "results",
    "compute_overall_f1": "results",
    "score_f1": "results",
    "score_results_f1": "results",
    "compute_token_f1": "spec",
    "normalize_answer": "spec",
    "porter_stem": "spec",
    "tokenize": "spec",
}

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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(
            f"module 'locoscore.benchmarks.locomo.scoring' has no attribute {name!r}"
        )
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
