"""What a probe found: one named result per check, with the evidence, and the whole report."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from locoscore.llm.call_errors import one_line_error
from locoscore.systems.base import Usage

Status = Literal["passed", "failed", "skipped"]
Outcome = tuple[Status, str]
PROBE_VERSION = 1
T = TypeVar("T")


class CheckFailed(Exception):
    """A check's failure, with its evidence as the message."""


async def attempt(call: str, method: Callable[..., Awaitable[T]], *args: Any) -> T:
    """What the system's `method(*args)` gives, or CheckFailed saying that `call` raised
    (and what)."""
    try:
        return await method(*args)
    except Exception as exc:
        raise CheckFailed(f"{call} raised {one_line_error(exc)}") from None


def returned(value: object, kind: type[T], call: str) -> T:
    """What `call` returned, or CheckFailed when it is not a `kind`."""
    if not isinstance(value, kind):
        raise CheckFailed(f"{call} returned {type(value).__name__}, expected {kind.__name__}")
    return value


def fail_on(problems: list[str], shown: int) -> None:
    """CheckFailed with the first `shown` problems (and how many more), if there are any."""
    if problems:
        more = f" (+{len(problems) - shown} more)" if len(problems) > shown else ""
        raise CheckFailed("; ".join(problems[:shown]) + more)


@dataclass(frozen=True)
class CheckResult:
    """`skipped` means the check does not apply (e.g. top_k on a system that ignores the
    budget by design) or could not run (ingestion failed); it is not a failure by itself."""

    name: str
    status: Status
    evidence: str
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.status == "failed"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "evidence": self.evidence,
            "seconds": round(self.seconds, 4),
        }


@dataclass
class ProbeReport:
    system: str
    checks: list[CheckResult] = field(default_factory=list)
    # Seconds from a just-added fact's `add` returning until a search found it (None when
    # not measured or never found).
    time_to_searchable_s: float | None = None
    ingest_sessions: int = 0
    ingest_wall_s: float = 0.0
    ingest_usage: Usage = field(default_factory=Usage)

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def failures(self) -> list[CheckResult]:
        return [check for check in self.checks if check.failed]

    def check(self, name: str) -> CheckResult:
        return next(c for c in self.checks if c.name == name)

    def failure_summary(self) -> str:
        """One line naming each failed check and its evidence (for `run`'s refusal)."""
        return "; ".join(f"{c.name}: {c.evidence}" for c in self.failures)

    def to_json(self) -> dict[str, Any]:
        return {
            "probe_version": PROBE_VERSION,
            "system": self.system,
            "ok": self.ok,
            "failed": [c.name for c in self.failures],
            "time_to_searchable_s": (
                None if self.time_to_searchable_s is None else round(self.time_to_searchable_s, 4)
            ),
            "ingest": {
                "sessions": self.ingest_sessions,
                "wall_s": round(self.ingest_wall_s, 4),
                "usage": self.ingest_usage.to_json(),
            },
            "checks": [c.to_json() for c in self.checks],
        }
