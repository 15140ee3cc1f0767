"""The two reference systems every benchmark can be run with: where a score starts and
where perfect memory would take it, with the same answer step as any system.

- `no-memory` (the floor): stores nothing, retrieves nothing. The answer prompt holds the
  question (and the question date where the benchmark gives one) and no conversation text.
- `gold-evidence` (the retrieval ceiling): returns exactly the turns the benchmark names as
  holding the answer, as turn items like any retrieval's (`items.session_items`), in
  conversation order, every one of them (top-k and the context budget do not apply). The run
  hands it the evidence (`set_gold_evidence`), keyed by the ids systems are shown, so it
  knows nothing a retrieval would not name: its items carry the turns' own text, dates and
  dia ids, and no score.

Neither is probed before a run (`MemorySystem.reference`): the probe tests how an
integration stores and retrieves, and these do neither by design.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from locoscore.data.conversation import Query, SessionInput
from locoscore.systems.base import MemoryItem, MemorySystem, SearchResult, Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.items import session_items
from locoscore.systems.options import OptionSpec, resolve_options


class NoMemorySystem(MemorySystem):
    name = "no-memory"
    reference = "floor"
    OPTIONS: ClassVar[dict[str, OptionSpec]] = {}

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        self.options: dict[str, Any] = resolve_options(self.name, self.OPTIONS, options)

    async def reset(self, conversation_id: str) -> None:
        return None

    async def add(self, session: SessionInput) -> Usage:
        return Usage()

    async def search(self, query: Query) -> SearchResult:
        return SearchResult(())


class GoldEvidenceSystem(MemorySystem):
    name = "gold-evidence"
    reference = "retrieval ceiling"
    takes_gold_evidence = True
    OPTIONS: ClassVar[dict[str, OptionSpec]] = {}

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        self.options: dict[str, Any] = resolve_options(self.name, self.OPTIONS, options)
        self._gold: dict[str, dict[str, tuple[str, ...]]] = {}
        self._wanted: dict[str, frozenset[str]] = {}
        # conversation id -> dia id -> (position in the conversation, its turn item); only
        # the gold turns are kept, so a run over long haystacks holds a few turns each
        self._items: dict[str, dict[str, tuple[int, MemoryItem]]] = {}

    def set_gold_evidence(self, gold: Mapping[str, Mapping[str, tuple[str, ...]]]) -> None:
        self._gold = {cid: dict(by_question) for cid, by_question in gold.items()}
        self._wanted = {
            cid: frozenset(d for ids in by_question.values() for d in ids)
            for cid, by_question in self._gold.items()
        }

    async def reset(self, conversation_id: str) -> None:
        self._items[conversation_id] = {}

    async def add(self, session: SessionInput) -> Usage:
        wanted = self._wanted.get(session.conversation_id, frozenset())
        kept = self._items.setdefault(session.conversation_id, {})
        for item in session_items(session, "turn"):
            dia_id = (item.dia_ids or ("",))[0]
            if dia_id in wanted and dia_id not in kept:
                kept[dia_id] = (len(kept), item)
        return Usage()

    async def search(self, query: Query) -> SearchResult:
        ids = self._gold.get(query.conversation_id, {}).get(query.question_id, ())
        kept = self._items.get(query.conversation_id, {})
        found = sorted((kept[d] for d in set(ids) if d in kept), key=lambda pair: pair[0])
        return SearchResult(tuple(item for _, item in found))
