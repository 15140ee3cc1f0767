"""Progress of a long pass (judge, audit, run): the counts, and how they are shown.

`Tally` keeps the counts (done/total, failures, calls, tokens, cost) and shows nothing: it is
what `--no-progress` gets, and what the interrupt message reads. `RichProgress` draws a bar
on a terminal; `LineProgress` prints one plain line at a steady pace where stderr is not a
terminal (logs, CI, `nohup`), and one at the end. `progress_for` picks between them.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)

# Seconds between two progress lines when stderr is not a terminal (tests shorten it).
LINE_INTERVAL_ENV = "LOCOSCORE_PROGRESS_EVERY"
DEFAULT_LINE_INTERVAL_S = 10.0


class ProgressSink(Protocol):
    """What a pass of calls reports its progress to (a `Tally`, or a test's recorder)."""

    def start(self, total: int, done: int, cached: int) -> None: ...

    def update(
        self, done: int, failed: int, tokens: int, cost_usd: float | None, calls: int | None = None
    ) -> None: ...

    def status(self, text: str) -> None: ...

    def stop(self) -> None: ...


def _duration(span_s: float) -> str:
    seconds = round(span_s)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class Tally:
    """The counts of a pass; shows nothing. `update` adds `done`, `failed` and `tokens`;
    `cost_usd` and `calls` are the pass's running totals (None: unknown / unchanged)."""

    def __init__(self, description: str = "judging", unit: str = "calls") -> None:
        self.description = description
        self.unit = unit
        self.total = 0
        self.done = 0
        self.resumed = 0  # done before this attempt (cache, saved state)
        self.cached = 0
        self.failed = 0
        self.tokens = 0
        self.calls = 0
        self.cost_usd: float | None = 0.0
        self.status_text = ""
        self.started_at = time.monotonic()
        self.interrupted = False  # stopped by a signal: the interrupt line says the rest
        self._lock = threading.Lock()

    def start(self, total: int, done: int, cached: int) -> None:
        with self._lock:
            self.total, self.done, self.resumed, self.cached = total, done, done, cached
            self.started_at = time.monotonic()

    def update(
        self, done: int, failed: int, tokens: int, cost_usd: float | None, calls: int | None = None
    ) -> None:
        with self._lock:
            self.done += done
            self.failed += failed
            self.tokens += tokens
            self.cost_usd = cost_usd
            if calls is not None:
                self.calls = calls

    def status(self, text: str) -> None:
        """A phase (ingestion, a batch being processed); "" ends it."""
        with self._lock:
            self.status_text = text

    def stop(self) -> None:
        pass

    @property
    def saved(self) -> int:
        """Finished without an error: what a rerun does not redo."""
        return max(0, self.done - self.failed)

    def interrupted_line(self) -> str:
        if self.total == 0:
            return "interrupted; rerun the same command to resume"
        return (
            f"interrupted: {self.saved:,} of {self.total:,} {self.unit} saved; "
            "rerun the same command to resume"
        )

    def eta_s(self) -> float | None:
        """Remaining time at this attempt's rate so far (None until something finished)."""
        new = self.done - self.resumed
        elapsed = time.monotonic() - self.started_at
        if new <= 0 or elapsed <= 0:
            return None
        return max(0, self.total - self.done) * elapsed / new

    def line(self) -> str:
        """One plain line: the description, done/total, calls, failures, cost, ETA."""
        with self._lock:
            share = f" ({100 * self.done / self.total:.0f} %)" if self.total else ""
            cost = "n/a" if self.cost_usd is None else f"${self.cost_usd:.2f}"
            eta = self.eta_s()
            remaining = "done" if self.done >= self.total else "unknown"
            if eta is not None and self.done < self.total:
                remaining = _duration(eta)
            parts = [
                f"{self.description}: {self.done:,}/{self.total:,} {self.unit}{share}",
                f"{self.calls:,} calls",
                f"{self.failed:,} failed",
                f"cost {cost}",
                f"elapsed {_duration(time.monotonic() - self.started_at)}",
                f"ETA {remaining}",
            ]
            if self.status_text:
                parts.append(self.status_text)
        return " · ".join(parts)


class LineProgress(Tally):
    """A progress line every `interval_s` seconds (from a timer thread, so a pass waiting on
    a batch or on Retry-After still shows it is alive), and one at the end."""

    def __init__(
        self,
        console: Console,
        description: str = "judging",
        unit: str = "calls",
        interval_s: float = DEFAULT_LINE_INTERVAL_S,
    ) -> None:
        super().__init__(description, unit)
        self.console = console
        self.interval_s = interval_s
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def _print(self) -> None:
        self.console.print(self.line(), highlight=False, markup=False, soft_wrap=True)

    def _tick(self) -> None:
        while not self._stopped.wait(self.interval_s):
            self._print()

    def start(self, total: int, done: int, cached: int) -> None:
        super().start(total, done, cached)
        if self._thread is None:
            self._stopped.clear()
            self._thread = threading.Thread(target=self._tick, name="progress", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stopped.set()
        thread.join()
        if not self.interrupted:
            self._print()


class RichProgress(Tally):
    """A live bar on a terminal: done/total, rate, ETA, cache hits, failures, tokens, cost."""

    def __init__(
        self, console: Console | None = None, description: str = "judging", unit: str = "calls"
    ) -> None:
        super().__init__(description, unit)
        self.console = console or Console(stderr=True)
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]} " + unit + "/s"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[status]}"),
            console=self.console,
            transient=False,
        )
        self.task: TaskID | None = None

    def start(self, total: int, done: int, cached: int) -> None:
        super().start(total, done, cached)
        self.progress.start()
        self.task = self.progress.add_task(
            self.description, total=total, completed=done, rate="0.0", status=self._status()
        )

    def _status(self) -> str:
        cost = "n/a" if self.cost_usd is None else f"${self.cost_usd:.2f}"
        return f"cached {self.cached} · failed {self.failed} · tokens {self.tokens:,} · cost {cost}"

    def update(
        self, done: int, failed: int, tokens: int, cost_usd: float | None, calls: int | None = None
    ) -> None:
        """`done` more finished (of which `failed` failed), `tokens` more spent."""
        super().update(done, failed, tokens, cost_usd, calls)
        if self.task is None:
            return
        task = self.progress.tasks[self.task]
        elapsed = task.elapsed or 0.0
        new = self.done - self.resumed
        rate = f"{new / elapsed:.1f}" if elapsed > 0 else "0.0"
        self.progress.update(self.task, advance=done, rate=rate, status=self._status())

    def status(self, text: str) -> None:
        """A waiting phase (a batch being processed): shown in place of the description."""
        super().status(text)
        if self.task is not None:
            self.progress.update(self.task, description=text or self.description)

    def stop(self) -> None:
        self.progress.stop()


def line_interval_s() -> float:
    """`$LOCOSCORE_PROGRESS_EVERY` seconds, else 10; a bad value is the default."""
    try:
        value = float(os.environ.get(LINE_INTERVAL_ENV, ""))
    except ValueError:
        return DEFAULT_LINE_INTERVAL_S
    return value if value > 0 else DEFAULT_LINE_INTERVAL_S


def progress_for(console: Console, enabled: bool, description: str, unit: str) -> Tally:
    """A bar on a terminal, steady lines elsewhere, nothing shown with `enabled` False (the
    counts are kept all the same, for the interrupt message)."""
    if not enabled:
        return Tally(description, unit)
    if _is_a_terminal(console):
        return RichProgress(console, description, unit)
    return LineProgress(console, description, unit, line_interval_s())


def _is_a_terminal(console: Console) -> bool:
    """The stream itself, not `console.is_terminal`: CI sets FORCE_COLOR, which makes rich
    treat a log file as a terminal (and fill it with redrawn bars)."""
    isatty = getattr(console.file, "isatty", None)
    try:
        return bool(isatty is not None and isatty())
    except ValueError:  # a closed stream
        return False
