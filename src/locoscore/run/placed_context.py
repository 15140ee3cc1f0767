"""The context an answer prompt is given: retrieved items, best first, as the budget allows.

The context is what the retrieval budget lets through: items in rank order while their
rendered lines fit `--context-budget` cl100k tokens (a first item larger than the whole
budget is cut to it, so a question is never asked with an empty context by accident).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from locoscore.systems.base import MemoryItem
from locoscore.tokens import count_tokens, truncate_to_tokens


def render_item(rank: int, item: MemoryItem) -> str:
    when = item.date_raw or item.date_iso or "date unknown"
    return f"[{rank}] (session of {when}) {item.text}"


@dataclass(frozen=True)
class PlacedContext:
    """The items that made it into the prompt, and the context text exactly as placed."""

    items: tuple[MemoryItem, ...]
    text: str
    tokens: int
    dropped: int  # items retrieved but left out by the budget


def place_context(items: Sequence[MemoryItem], budget: int | None) -> PlacedContext:
    """Items in rank order while they fit `budget` tokens (None: all of them)."""
    lines: list[str] = []
    placed: list[MemoryItem] = []
    used = 0
    for item in items:
        line = render_item(len(placed) + 1, item)
        if budget is None:  # no budget: nothing to count per line
            lines.append(line)
            placed.append(item)
            continue
        cost = count_tokens(line + "\n")
        if used + cost > budget:
            if not placed:
                line = truncate_to_tokens(line, budget)
                lines.append(line)
                placed.append(item)
            break
        lines.append(line)
        placed.append(item)
        used += cost
    text = "\n".join(lines) if lines else "(no memories were retrieved)"
    return PlacedContext(tuple(placed), text, count_tokens(text), len(items) - len(placed))
