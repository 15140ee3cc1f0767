"""A tiny memory system of your own, evaluated with `--system python:my_memory:KeywordMemory`.

Run locoscore from this folder (the current directory is importable, as with `python -m`):

    cd examples
    locoscore probe --system python:my_memory:KeywordMemory
    locoscore run --system python:my_memory:KeywordMemory --answer-provider extractive ...

It stores every turn and retrieves the turns sharing the most words with the question.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, ClassVar

from locoscore.data.conversation import Query, SessionInput
from locoscore.systems.base import MemoryItem, MemorySystem, SearchResult, Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.options import OptionSpec, resolve_options, signature_values

_WORD = re.compile(r"[a-z0-9]+")
# Words too common to say anything about which turn answers a question.
_STOPWORDS = {"a", "an", "and", "did", "do", "i", "in", "is", "it", "my", "of", "the", "to", "was"}


def keywords(text: str) -> set[str]:
    return {word for word in _WORD.findall(text.lower()) if word not in _STOPWORDS}


class KeywordMemory(MemorySystem):
    # `--system-option min_overlap=2` keeps only turns sharing at least two keywords.
    OPTIONS: ClassVar[dict[str, OptionSpec]] = {
        "min_overlap": OptionSpec(int, 1, "keywords a turn must share with the question"),
    }

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        # Unknown or malformed options become a one-line error (exit 2) before anything runs.
        self.options: dict[str, Any] = resolve_options("KeywordMemory", self.OPTIONS, options)
        self.turns: dict[str, list[MemoryItem]] = {}  # conversation id -> its turns, in order

    async def reset(self, conversation_id: str) -> None:
        self.turns[conversation_id] = []

    async def add(self, session: SessionInput) -> Usage:
        # One item per turn, carrying its session's date and dia_id; `render()` keeps the
        # speaker's name and an image's caption in the text.
        self.turns.setdefault(session.conversation_id, []).extend(
            MemoryItem(
                text=turn.render(),
                date_iso=session.date_iso,
                date_raw=session.date_raw,
                dia_ids=(turn.dia_id,),
            )
            for turn in session.turns
        )
        # The usage hook: a system calling a model would report its tokens and cost here.
        return Usage()

    async def search(self, query: Query) -> SearchResult:
        wanted = keywords(query.text)
        ranked = sorted(
            (
                (len(wanted & keywords(item.text)), position, item)
                for position, item in enumerate(self.turns.get(query.conversation_id, []))
            ),
            key=lambda entry: (-entry[0], entry[1]),  # most overlap first, then oldest first
        )
        best = [entry for entry in ranked if entry[0] >= self.options["min_overlap"]]
        return SearchResult(
            tuple(replace(item, score=float(overlap)) for overlap, _, item in best[: query.top_k])
        )

    def signature_options(self) -> dict[str, str]:
        return signature_values(self.OPTIONS, self.options)
