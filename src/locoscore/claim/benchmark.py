"""What the claim card asks of a benchmark (`Benchmark`'s own attributes and hooks), named
here so that the card, below the benchmarks that write it, never imports them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol


class ClaimedBenchmark(Protocol):
    name: str
    source: str | None
    commands: frozenset[str]  # the commands it takes (no `judge`: scored without one)

    def known_file(self, sha256: str) -> Any | None: ...

    def load(self, path: str | Path | None) -> Any: ...

    def question_total(self, data: Any, *, include_excluded: bool = True) -> int: ...

    def headline_scores(self, directory: Path) -> tuple[str, dict[str, float]] | None: ...

    def unscored_questions(self, directory: Path) -> int | None: ...

    def errata_ceiling(self, directory: Path) -> dict[str, Any] | None: ...

    def run_fingerprint(self, records: list[dict[str, Any]]) -> str: ...

    def rederive(self, directory: Path, data: Any, out: Path) -> list[str]: ...

    def __hash__(self) -> int: ...
