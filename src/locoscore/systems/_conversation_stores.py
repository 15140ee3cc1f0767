"""The stores an in-process memory library keeps, one per conversation in a folder of its
own (a-mem, langmem, mem0g-library): each opened once, even when an add and searches race to
open it, and none opened for a search of a conversation that was never stored."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

S = TypeVar("S")


class ConversationStores(Generic[S]):
    def __init__(self, folder: Callable[[str], Path]) -> None:
        self._folder = folder
        self._stores: dict[str, S] = {}
        self._lock = threading.Lock()  # the stores held
        self._opening = threading.Lock()  # one store opened at a time

    def get(self, conversation_id: str) -> S | None:
        with self._lock:
            return self._stores.get(conversation_id)

    def open(self, conversation_id: str, create: bool, opener: Callable[[Path], S]) -> S | None:
        """The conversation's store, made by `opener` from its folder the first time; None
        where `create` is false and the conversation has no folder (it was never stored)."""
        found = self.get(conversation_id)
        if found is not None:
            return found
        with self._opening:
            found = self.get(conversation_id)
            if found is not None:
                return found
            folder = self._folder(conversation_id)
            if not create and not folder.exists():
                return None
            store = opener(folder)
            with self._lock:
                self._stores[conversation_id] = store
            return store

    def pop(self, conversation_id: str) -> S | None:
        with self._lock:
            return self._stores.pop(conversation_id, None)

    def drain(self) -> list[S]:
        """Every store held, no longer held (to be closed)."""
        with self._lock:
            stores, self._stores = list(self._stores.values()), {}
        return stores
