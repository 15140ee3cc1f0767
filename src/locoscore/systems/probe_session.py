"""One probe in progress: the system under test, conversations A and B, and the report that
each check appends to. The checks (`probe_checks`) and the driver (`probe`) both hold it."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from locoscore.data.conversation import Query, SessionInput
from locoscore.llm.call_errors import one_line_error
from locoscore.systems.base import MemorySystem, SearchResult, Usage
from locoscore.systems.probe_conversations import (
    PROBE_PREFIX,
    ProbeConversation,
    probe_conversations,
)
from locoscore.systems.probe_report import (
    CheckFailed,
    CheckResult,
    Outcome,
    ProbeReport,
    attempt,
    returned,
)


class ProbeSession:
    def __init__(self, system: MemorySystem, searchable_deadline_s: float) -> None:
        self.system = system
        self.deadline_s = searchable_deadline_s
        self.a, self.b = probe_conversations()
        self.report = ProbeReport(system=str(getattr(system, "name", type(system).__name__)))
        self._queries = 0

    @property
    def answers_itself(self) -> bool:
        return bool(getattr(self.system, "answers_itself", False))

    def label(self, conv: ProbeConversation) -> str:
        return "A" if conv is self.a else "B"

    async def reset(self, cid: str) -> None:
        await attempt(f"reset({cid!r})", self.system.reset, cid)

    async def add(self, session: SessionInput) -> Usage:
        """One session of a probe conversation added, as a run adds it."""
        call = f"add(session {session.index} of {session.conversation_id!r})"
        return returned(await attempt(call, self.system.add, session), Usage, "add")

    async def search(self, conv: ProbeConversation, text: str, top_k: int) -> SearchResult:
        self._queries += 1
        query = Query(
            conv.conversation_id,
            f"{PROBE_PREFIX}q{self._queries}",
            text,
            top_k,
            conv.conversation.last_date_iso,
        )
        result = await attempt(
            f"search of {self.label(conv)} for {text!r}", self.system.search, query
        )
        return returned(result, SearchResult, "search")

    async def run_check(
        self, name: str, check: Callable[[ProbeSession], Awaitable[Outcome]]
    ) -> None:
        started = time.monotonic()
        try:
            status, evidence = await check(self)
        except CheckFailed as failure:
            status, evidence = "failed", str(failure)
        except Exception as exc:  # a check must report, never crash the probe
            status, evidence = "failed", f"raised {one_line_error(exc)}"
        self.report.checks.append(CheckResult(name, status, evidence, time.monotonic() - started))
