"""locoscore: defensible LoCoMo scores for conversational memory systems.

Stable public API: `score_f1`, `bleu1`, the seed's `score_results_f1`,
`aggregate_f1_by_category`, `compute_overall_f1`, and the spec-variant helpers
`normalize_answer`, `porter_stem`, `tokenize`, `compute_token_f1`.

The scoring names are loaded on first use (PEP 562), so `import locoscore` (and with it
`locoscore --help` and `--version`) does not import NLTK and NumPy.
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
    if name in __all__:
        from locoscore.benchmarks.locomo import scoring

        return getattr(scoring, name)
    raise AttributeError(f"module 'locoscore' has no attribute {name!r}")
