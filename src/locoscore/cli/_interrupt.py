"""SIGINT and SIGTERM stop a command cleanly: one line, exit 128 + the signal, no traceback.

While a pass runs (`run_pass`), the first signal cancels it: the `finally` blocks close the
clients and the progress display, and everything already committed (every finished call)
stays in the folder's SQLite state, so rerunning the same command resumes and pays no call
twice beyond those in flight. Outside a pass the signal stops the command where it is (every
output is written to a temporary file and renamed, so none is left half-written). A second
signal stops at once.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypeVar

from locoscore.llm.progress import Tally

T = TypeVar("T")

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(Exception):
    """The command was stopped by a signal; `line` says what was saved."""

    def __init__(self, signum: int, line: str) -> None:
        super().__init__(line)
        self.signum = signum
        self.line = line

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


class _State:
    tally: Tally | None = None
    loop: asyncio.AbstractEventLoop | None = None
    task: asyncio.Task[Any] | None = None
    received: int | None = None


_state = _State()


def _line() -> str:
    tally = _state.tally
    return tally.interrupted_line() if tally is not None else "interrupted"


def _on_signal(signum: int, frame: FrameType | None) -> None:
    if _state.received is not None:
        raise Interrupted(_state.received, _line())  # a second signal: stop at once
    _state.received = signum
    if _state.tally is not None:
        _state.tally.interrupted = True
    loop, task = _state.loop, _state.task
    if loop is not None and task is not None and not task.done():
        loop.call_soon_threadsafe(task.cancel)
        return
    raise Interrupted(signum, _line())


@contextmanager
def signals_stop_cleanly() -> Iterator[None]:
    """For the duration of a command: SIGINT and SIGTERM raise `Interrupted`."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread receives signals (a command invoked from a thread)
        return
    previous = {s: signal.getsignal(s) for s in SIGNALS}
    _state.received = None
    _state.tally = None
    for s in SIGNALS:
        signal.signal(s, _on_signal)
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        _state.tally = None
        _state.received = None


def run_pass(main: Coroutine[Any, Any, T], tally: Tally | None = None) -> T:
    """`asyncio.run(main)`, cancelled by the first SIGINT/SIGTERM (then `Interrupted`); `tally`
    holds the counts the interrupt message names."""
    if tally is not None:
        _state.tally = tally

    async def guarded() -> T:
        _state.task = asyncio.current_task()
        return await main

    with asyncio.Runner() as runner:
        _state.loop = runner.get_loop()
        try:
            result = runner.run(guarded())
        except asyncio.CancelledError:
            if _state.received is None:
                raise
            raise Interrupted(_state.received, _line()) from None
        finally:
            _state.loop = _state.task = None
    if _state.received is not None:  # the pass ended as the signal came: stop all the same
        raise Interrupted(_state.received, _line())
    return result
