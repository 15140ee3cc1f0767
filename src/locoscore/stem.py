"""NLTK's Porter stemmer (default NLTK_EXTENSIONS mode), memoised.

The official LoCoMo scorer re-stems every token on every call; stemming is pure, so a
per-process cache gives identical results far faster.
"""

from __future__ import annotations

from functools import cache, lru_cache
from importlib.metadata import version
from typing import Any

# The installed version names the stemmer without importing nltk: `import nltk` takes about
# a second (it loads scipy.stats), which every command would pay before reading its input.
NLTK_VERSION = version("nltk")
STEMMER_ID = f"porter-nltk{NLTK_VERSION}"


@cache
def _stemmer() -> Any:
    from nltk.stem import PorterStemmer

    return PorterStemmer()  # mode=NLTK_EXTENSIONS, as in the official scorer


@lru_cache(maxsize=1 << 18)
def porter_stem(word: str) -> str:
    """Stem one token exactly as `nltk.stem.PorterStemmer().stem` does."""
    return str(_stemmer().stem(word))
