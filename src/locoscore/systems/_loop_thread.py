"""An event loop of the system's own, in a daemon thread, for an async library.

An async library (Graphiti) binds its HTTP pools and database connections to the event loop
it first ran on, while a run, a probe or a test may drive a system from several loops one
after another. The adapter therefore runs every library coroutine on one loop it owns, and
the caller awaits the result from its own loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    """A running event loop in a daemon thread; `run` awaits a coroutine on it."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def _started(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name=self._name, daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """The coroutine's result, computed on the thread's loop."""
        future = asyncio.run_coroutine_threadsafe(coro, self._started())
        return await asyncio.wrap_future(future)

    def close(self) -> None:
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
