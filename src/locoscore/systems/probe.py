"""The probe: does an integration keep dates, captions and conversations apart?

`run_probe(system)` ingests a synthetic conversation pair (`probe_conversations`) into a
started system and runs named checks, each with its evidence:

- `shapes`: items have non-empty text, a numeric or null score, dia_ids of the conversation
  or null, ISO dates or null; usage is a Usage.
- `dates`: the item holding each fact carries its session's date (same day, or the raw date
  string, in its fields or written before the fact in its text, as a chunk spanning
  sessions has it); a system that answers itself must answer "when" questions with the
  month and year.
- `captions`: a query for a word found only in an image caption retrieves the image turn.
- `isolation`: no search of A ever returns B's made-up words, and vice versa.
- `ingest_once`: no result holds the same item twice (a session stored twice).
- `top_k`: top_k=1 gives at most 1 item, top_k=3 at most 3 (skipped for systems that
  declare `ignores_budget`).
- `time_to_searchable`: seconds from `add` returning until a search finds the new fact
  (a measurement; fails only when the fact is never found before the deadline).
- `attribution`: an item holding a fact names that fact's turn among its dia_ids (skipped
  when no item names any turn: retrieval metrics then cannot be computed).
- `reset`: after `reset(A)` no search of A returns A's facts, and B is untouched.
- `unknown_conversation`: searching a conversation never added gives no items or a clean
  LocoscoreError.

Ingestion (reset A and B, add their sessions in order, then `finish` each, as a run does)
always runs first as the `ingest` check. Probe conversations are named `locoscore-probe-*`
and reset at the end, so a probe never touches a real run's conversations.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from locoscore.errors import InputError
from locoscore.llm.call_errors import one_line_error
from locoscore.systems.base import MemorySystem, Usage
from locoscore.systems.probe_checks import CHECKS, finish_conversation, poll_until_found
from locoscore.systems.probe_report import (
    CheckFailed,
    CheckResult,
    Outcome,
    ProbeReport,
)
from locoscore.systems.probe_session import ProbeSession

# `unknown_conversation` comes last: a server answering it with an HTTP 404 makes the http
# client stop sending (404 means "outside the contract"), which then only the cleanup feels.
ALL_CHECKS: tuple[str, ...] = (
    "shapes",
    "dates",
    "captions",
    "isolation",
    "ingest_once",
    "top_k",
    "time_to_searchable",
    "attribution",
    "reset",
    "unknown_conversation",
)
# What `locoscore run` checks before it starts (cheap: one ingestion, a few searches).
QUICK_CHECKS: tuple[str, ...] = ("dates", "captions", "isolation", "top_k", "time_to_searchable")
DEFAULT_SEARCHABLE_DEADLINE_S = 30.0


async def _ingest(p: ProbeSession) -> Outcome:
    started = time.monotonic()
    usage = Usage()
    for conv in (p.a, p.b):
        cid = conv.conversation_id
        await p.reset(cid)
        for session in conv.conversation.sessions:
            usage += await p.add(session)
            p.report.ingest_sessions += 1
        usage += await finish_conversation(p, cid)
    ingested = time.monotonic()
    p.report.ingest_wall_s = ingested - started
    p.report.ingest_usage = usage
    # Systems that index asynchronously: wait (up to the deadline) until each conversation's
    # last fact is searchable, so the content checks do not race the indexer.
    # A failing search is left for the checks to report, each with its own evidence.
    try:
        settled = [await poll_until_found(p, c, c.facts[-1], ingested) for c in (p.a, p.b)]
        waits = [seconds for seconds, _ in settled if seconds is not None]
        ready = (
            f"; searchable {max(waits):.3f} s later"
            if len(waits) == len(settled)
            else f"; last facts still not searchable after {p.deadline_s:g} s"
        )
    except CheckFailed as failure:
        ready = f"; then {failure}"
    spent = ""
    if usage.input_tokens or usage.output_tokens:
        spent += f", {usage.input_tokens} LLM tokens in / {usage.output_tokens} out"
    if usage.embedding_tokens:
        spent += f", {usage.embedding_tokens} embedding tokens"
    return "passed", (
        f"reset + add of {p.report.ingest_sessions} sessions in "
        f"{p.report.ingest_wall_s:.3f} s{spent}{ready}"
    )


def check_names(names: Sequence[str]) -> tuple[str, ...]:
    """Validated check names in probe order; an unknown name is an InputError."""
    unknown = [name for name in names if name not in CHECKS]
    if unknown:
        raise InputError(f"--check {unknown[0]}: unknown check (known: {', '.join(ALL_CHECKS)})")
    return tuple(name for name in ALL_CHECKS if name in names)


async def run_probe(
    system: MemorySystem,
    checks: Sequence[str] = QUICK_CHECKS,
    *,
    searchable_deadline_s: float = DEFAULT_SEARCHABLE_DEADLINE_S,
) -> ProbeReport:
    """Probe a started system (the caller starts and closes it); never raises for a
    system's misbehaviour, which is reported as failed checks."""
    selected = check_names((checks,) if isinstance(checks, str) else checks)
    probe = ProbeSession(system, searchable_deadline_s)
    report = probe.report
    try:
        await probe.run_check("ingest", _ingest)
        ingested = not report.checks[-1].failed
        for name in selected:
            if ingested:
                await probe.run_check(name, CHECKS[name])
            else:
                report.checks.append(CheckResult(name, "skipped", "not run: ingestion failed"))
    finally:
        for conv in (probe.a, probe.b):
            try:
                await system.reset(conv.conversation_id)
            except Exception as exc:
                evidence = f"reset({conv.conversation_id!r}) raised {one_line_error(exc)}"
                report.checks.append(CheckResult("cleanup", "failed", evidence))
    return report


class ProbeFailed(InputError):
    """The quick probe failed before a run: the run refuses to start (an InputError, so the
    run's bad-input path applies: one line, exit 2, nothing written)."""

    def __init__(self, report: ProbeReport) -> None:
        self.report = report
        super().__init__(
            f"--system {report.system}: the integration probe failed "
            f"({report.failure_summary()}); see `locoscore probe`, or rerun with --skip-probe"
        )


async def require_probe(system: MemorySystem, checks: Sequence[str] = QUICK_CHECKS) -> ProbeReport:
    """What `locoscore run` does before ingesting: the quick probe, raising ProbeFailed on
    any failed check (the report, for run.json, is on the exception and the return)."""
    report = await run_probe(system, checks)
    if not report.ok:
        raise ProbeFailed(report)
    return report
