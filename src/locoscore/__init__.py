"""locoscore: defensible scores for conversational memory systems, on LoCoMo, LongMemEval,
BEAM or a benchmark of your own (each a registered object: `locoscore.benchmarks`).

Stable public API, LoCoMo's lexical scoring as the seed published it: `score_f1`, `bleu1`,
`score_results_f1`, `aggregate_f1_by_category`, `compute_overall_f1`, the spec-variant
helpers `normalize_answer`, `porter_stem`, `tokenize`, `compute_token_f1`, and the lexical
protocols (`PROTOCOLS`, `get_protocol`).

They are re-exported from the benchmark's package and loaded on first use (PEP 562), so
`import locoscore` (and with it `locoscore --help` and `--version`) imports no benchmark,
nor NLTK and NumPy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from locoscore._version import __version__

if TYPE_CHECKING:
    from locoscore.benchmarks.locomo.scoring import (
        PROTOCOLS,
        aggregate_f1_by_category,
        bleu1,
        compute_overall_f1,
        compute_token_f1,
        get_protocol,
        normalize_answer,
        porter_stem,
        score_f1,
        score_results_f1,
        tokenize,
    )

__all__ = [
    "PROTOCOLS",
    "__version__",
    "aggregate_f1_by_category",
    "bleu1",
    "compute_overall_f1",
    "compute_token_f1",
    "get_protocol",
    "normalize_answer",
    "porter_stem",
    "score_f1",
    "score_results_f1",
    "tokenize",
]


def __getattr__(name: str) -> Any:
    if name in __all__:  # a public name: LoCoMo's scoring, loaded once asked for
        from locoscore.benchmarks.locomo import scoring

        return getattr(scoring, name)
    raise AttributeError(f"module 'locoscore' has no attribute {name!r}")
