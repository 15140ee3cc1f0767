"""How many sessions a system adds at once, across conversations, on whichever event loop
runs the adds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class IngestSlots:
    """`size` slots for adds. A semaphore belongs to the loop it was first awaited on, and a
    system may be driven by several loops in turn (a probe's, then a run's): each loop gets
    its own."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._held: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None

    def semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._held is None or self._held[0] is not loop:
            self._held = (loop, asyncio.Semaphore(self._size))
        return self._held[1]

    async def timed(self, work: Awaitable[T]) -> tuple[T, float]:
        """`work`'s result once a slot is free, and the seconds it took in the slot."""
        async with self.semaphore():
            started = time.perf_counter()
            result = await work
            return result, time.perf_counter() - started
