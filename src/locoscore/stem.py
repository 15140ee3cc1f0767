"""NLTK's Porter stemmer (default NLTK_EXTENSIONS mode), memoised.

The official LoCoMo scorer re-stems every token on every call; stemming is pure, so a
per-process cache gives identical results far faster.
"""

from __future__ import annotations

from functools import lru_cache

import nltk
from nltk.stem import PorterStemmer

_STEMMER = PorterStemmer()  # mode=NLTK_EXTENSIONS, as in the official scorer

STEMMER_ID = f"porter-nltk{nltk.__version__}"


@lru_cache(maxsize=1 << 18)
def porter_stem(word: str) -> str:
    """Stem one token exactly as `nltk.stem.PorterStemmer().stem` does."""
    return _STEMMER.stem(word)
