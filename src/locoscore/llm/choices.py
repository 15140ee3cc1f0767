"""How many choices (`n`) one Chat Completions request may ask a compatible server for.

The judge serves the runs of a question with one request (`n = --runs`). llama.cpp's
`llama-server` runs each choice on a slot and refuses `n` above its slot count (HTTP 400
"Field 'n': Value must be between 1 <= value <= 1, but got 10"); other servers refuse `n`
in their own words (naming the field, often no limit), and some ignore it and answer once
(handled by the judge runner: the runs not served are asked again one by one).

A refusal is a negotiation, like a rejected response format: the client learns the limit
from the message (1 when the message names none), once for the pass, and the caller sends
the runs again in requests the server takes.
"""

from __future__ import annotations

import json
import re
from typing import Any

# llama.cpp: "<= value <= 4"; others: "at most 4", "must be <= 4", "between 1 and 4".
_LIMIT = re.compile(
    r"<=\s*value\s*<=\s*(\d+)|at most\s+(\d+)|(?:<=|less than or equal to)\s*(\d+)"
    r"|between\s+1\s+and\s+(\d+)"
)
# The refused field named as `n` (quoted, or as the error's `param`), not a word holding it.
_NAMES_N = re.compile(r"""(?:['"`]n['"`])|(?:\bparam\W+n\b)|(?:\bn\s*(?:must|should|>|=))""")
_CONTEXT = ("context", "too long", "exceeds")


class ChoicesRefused(Exception):
    """The server refused the request's `n`; `limit` is what it takes (the client now asks
    for no more), and the runs are to be sent again in requests of at most `limit`."""

    def __init__(self, asked: int, limit: int) -> None:
        super().__init__(
            f"the server refused n={asked} choices a request; now asking at most {limit}"
        )
        self.asked, self.limit = asked, limit


def refused_choices(status: int, body: Any, asked: int) -> int | None:
    """The limit a refusal of `n = asked` names (1 when it names none), or None when the
    error is not about `n` (only a 400 or 422 to a request that asked for several)."""
    if asked <= 1 or status not in (400, 422):
        return None
    text = body if isinstance(body, str) else json.dumps(body, default=str)
    lowered = text.lower()
    if not _NAMES_N.search(lowered) or any(word in lowered for word in _CONTEXT):
        return None
    for match in _LIMIT.finditer(lowered):
        limit = int(next(g for g in match.groups() if g is not None))
        if 1 <= limit < asked:
            return limit
    return 1


def split(items: list[Any], size: int) -> list[list[Any]]:
    """`items` in consecutive requests of at most `size` (at least 1)."""
    size = max(1, size)
    return [items[start : start + size] for start in range(0, len(items), size)]
