"""Provider prompt caching: which prefix to mark, and when marking it pays.

Anthropic caches a prompt prefix only where the request marks it (`cache_control`), and only
from the model's minimum cacheable length on; the first request writes it (1.25x the input
price), later identical prefixes read it (0.1x) once the writing reply has started. OpenAI
caches identical prefixes of 1,024+ tokens by itself (in 128-token steps) and vLLM/llama.cpp
prefix caching needs nothing but the same leading text: for them a stable prefix is all.

The answer step's shared prefix is the rendered prompt before the question (the
instructions and the context placed ahead of it), so nothing in the prompt changes: its
text, hash and every signature stay what they were.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from locoscore._io import sha256_text

# Minimum cacheable prefix per Anthropic model (tokens), as Anthropic documents it; a model
# not listed is taken at 1,024 (a too-short mark is not an error, just not cached).
_ANTHROPIC_MIN_TOKENS: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile(r"^claude-(?:haiku-4-5|opus-4-5|opus-4-6|opus-4-7)"), 4096),
    (re.compile(r"^claude-(?:sonnet-4-6|haiku-3)"), 2048),
)
DEFAULT_MIN_TOKENS = 1024
OPENAI_MIN_TOKENS = 1024
OPENAI_STEP_TOKENS = 128


def anthropic_min_tokens(model: str) -> int:
    for pattern, tokens in _ANTHROPIC_MIN_TOKENS:
        if pattern.match(model):
            return tokens
    return DEFAULT_MIN_TOKENS


def estimate_tokens(text: str) -> int:
    """About four characters a token (a decision's estimate, never billed)."""
    return len(text) // 4


def split_at_prefix(prompt: str, prefix: str) -> tuple[str, str] | None:
    """`prompt` as (cached block, rest) cut at the last line break of its shared `prefix`;
    the line break itself is the boundary between the two blocks, so joined with one line
    break they are the prompt again. None when there is no such break."""
    if not prompt.startswith(prefix):
        return None
    cut = prefix.rfind("\n")
    if cut <= 0:
        return None
    return prompt[:cut], prompt[cut + 1 :]


@dataclass
class PrefixPolicy:
    """Which answer prompts get a `cache_control` mark. A prefix is marked when it is long
    enough for the model and is (or will be) shared: always for a system whose context is the
    same for every question of a conversation (full-context), otherwise from its second use
    on (a retrieval context is usually one question's own, and a write costs 1.25x)."""

    enabled: bool
    provider: str
    model: str
    shared_context: bool = False
    _seen: set[str] = field(default_factory=set)

    def mark(self, prefix: str | None) -> bool:
        if not self.enabled or self.provider != "anthropic" or not prefix:
            return False
        if estimate_tokens(prefix) < anthropic_min_tokens(self.model):
            return False
        digest = sha256_text(prefix)
        seen = digest in self._seen
        self._seen.add(digest)
        return self.shared_context or seen
