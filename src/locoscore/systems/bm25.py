"""`bm25`: lexical retrieval over one conversation's turns (or sessions) with `bm25s`.

Why bm25s: maintained, NumPy only (no JVM, no server), sparse scoring that indexes a LoCoMo
conversation in milliseconds, and the usual Lucene BM25 variant (k1 1.5, b 0.75). Tokens:
lowercased words without English stopwords, Porter-stemmed with the memoised NLTK stemmer
locoscore already uses. Ranking is made deterministic here: all scores, then a stable sort
by (−score, position in the conversation), so ties never depend on the library's sort.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import numpy as np

from locoscore.data.conversation import Query, SessionInput
from locoscore.stem import porter_stem
from locoscore.systems.base import MemoryItem, MemorySystem, SearchResult, Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.items import GRANULARITIES, session_items, top_k_indices
from locoscore.systems.options import OptionSpec, resolve_options, signature_values

_WORD = re.compile(r"[a-z0-9]+")


def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


def bm25_tokens(text: str, stopwords: frozenset[str]) -> list[str]:
    return [porter_stem(w) for w in _WORD.findall(text.lower()) if w not in stopwords]


class _Index:
    def __init__(self) -> None:
        self.items: list[MemoryItem] = []
        self.tokens: list[list[str]] = []  # per item, tokenised once at `add`
        self.retriever: Any = None


class BM25System(MemorySystem):
    name = "bm25"
    OPTIONS: ClassVar[dict[str, OptionSpec]] = {
        "granularity": OptionSpec(str, "turn", "retrieve turns or whole sessions", GRANULARITIES),
        "k1": OptionSpec(float, 1.5, "BM25 term-frequency saturation"),
        "b": OptionSpec(float, 0.75, "BM25 length normalisation"),
    }

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        self.options: dict[str, Any] = resolve_options(self.name, self.OPTIONS, options)
        self._stopwords = _stopwords()
        self._indexes: dict[str, _Index] = {}

    async def reset(self, conversation_id: str) -> None:
        self._indexes[conversation_id] = _Index()

    async def add(self, session: SessionInput) -> Usage:
        index = self._indexes.setdefault(session.conversation_id, _Index())
        items = session_items(session, self.options["granularity"])
        index.items.extend(items)
        index.tokens.extend(bm25_tokens(item.text, self._stopwords) for item in items)
        index.retriever = None  # stale: rebuilt once, at `finish` (or the next search)
        return Usage()

    async def finish(self, conversation_id: str) -> Usage:
        # Indexed once after the last session: ingestion time, not the first search's.
        index = self._indexes.get(conversation_id)
        if index is not None and index.items:
            self._retriever(index)
        return Usage()

    def _retriever(self, index: _Index) -> Any:
        if index.retriever is None:
            import bm25s

            retriever = bm25s.BM25(k1=self.options["k1"], b=self.options["b"])
            retriever.index(index.tokens, show_progress=False)
            index.retriever = retriever
        return index.retriever

    async def search(self, query: Query) -> SearchResult:
        index = self._indexes.get(query.conversation_id)
        if index is None or not index.items:
            return SearchResult(())
        retriever = self._retriever(index)
        tokens = bm25_tokens(query.text, self._stopwords)
        scores = np.asarray(retriever.get_scores(tokens), dtype=float)
        picked = top_k_indices(scores, query.top_k)
        return SearchResult(
            tuple(
                MemoryItem(
                    text=index.items[i].text,
                    score=round(float(scores[i]), 6),
                    date_iso=index.items[i].date_iso,
                    date_raw=index.items[i].date_raw,
                    dia_ids=index.items[i].dia_ids,
                )
                for i in picked
            )
        )

    def signature_options(self) -> dict[str, str]:
        return signature_values(self.OPTIONS, self.options)

    def items_in(self, conversation_id: str) -> int | None:
        index = self._indexes.get(conversation_id)
        return None if index is None else len(index.items)
