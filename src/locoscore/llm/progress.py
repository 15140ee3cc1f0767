"""A rich progress bar for a pass of model calls (judge or answerer): done/total, rate, ETA,
cache hits, failures, tokens, cost."""

from __future__ import annotations

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


class ProgressSink(Protocol):
    """What a pass of calls reports its progress to (RichProgress, or a test's recorder)."""

    def start(self, total: int, done: int, cached: int) -> None: ...

    def update(self, done: int, failed: int, tokens: int, cost_usd: float | None) -> None: ...

    def status(self, text: str) -> None: ...

    def stop(self) -> None: ...


class RichProgress:
    def __init__(
        self, console: Console | None = None, description: str = "judging", unit: str = "calls"
    ) -> None:
        self.console = console or Console(stderr=True)
        self.description = description
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
        self.cached = 0
        self.failed = 0
        self.tokens = 0
        self.calls = 0

    def start(self, total: int, done: int, cached: int) -> None:
        self.cached = cached
        self.progress.start()
        self.task = self.progress.add_task(
            self.description, total=total, completed=done, rate="0.0", status=self._status(None)
        )

    def _status(self, cost_usd: float | None) -> str:
        cost = "n/a" if cost_usd is None else f"${cost_usd:.2f}"
        return f"cached {self.cached} · failed {self.failed} · tokens {self.tokens:,} · cost {cost}"

    def update(self, done: int, failed: int, tokens: int, cost_usd: float | None) -> None:
        """`done` more finished (of which `failed` failed), `tokens` more spent."""
        if self.task is None:
            return
        self.calls += done
        self.failed += failed
        self.tokens += tokens
        task = self.progress.tasks[self.task]
        elapsed = task.elapsed or 0.0
        rate = f"{self.calls / elapsed:.1f}" if elapsed > 0 else "0.0"
        self.progress.update(self.task, advance=done, rate=rate, status=self._status(cost_usd))

    def status(self, text: str) -> None:
        """A waiting phase (a batch being processed): shown in place of the description."""
        if self.task is not None:
            self.progress.update(self.task, description=text)

    def stop(self) -> None:
        self.progress.stop()
