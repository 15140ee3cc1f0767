"""A BM25 system that writes down everything it is given (`--system-option record=PATH`).

Importable as `python:recording_system:RecordingBM25` with this folder on sys.path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from locoscore.data.conversation import Query, SessionInput
from locoscore.systems.base import SearchResult, Usage
from locoscore.systems.bm25 import BM25System


class RecordingBM25(BM25System):
    def __init__(self, options: dict[str, str], context: Any) -> None:
        options = dict(options)
        self._record = Path(options.pop("record"))
        super().__init__(options, context)

    def _write(self, kind: str, payload: dict[str, Any]) -> None:
        with self._record.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"kind": kind, **payload}) + "\n")

    async def reset(self, conversation_id: str) -> None:
        self._write("reset", {"conversation_id": conversation_id})
        await super().reset(conversation_id)

    async def add(self, session: SessionInput) -> Usage:
        self._write("add", session.to_json())
        return await super().add(session)

    async def search(self, query: Query) -> SearchResult:
        self._write("search", query.to_json())
        return await super().search(query)

    def signature_options(self) -> dict[str, Any]:
        return {k: v for k, v in super().signature_options().items() if k != "record"}


class MisattributingBM25(BM25System):
    """Names the wrong turn for every item (an off-by-one in its turn bookkeeping)."""

    async def search(self, query: Query) -> SearchResult:
        from dataclasses import replace

        result = await super().search(query)
        shifted = []
        for item in result.items:
            ids = tuple(f"{d.split(':')[0]}:{int(d.split(':')[1]) + 1}" for d in item.dia_ids or ())
            shifted.append(replace(item, dia_ids=ids))
        return replace(result, items=tuple(shifted))
