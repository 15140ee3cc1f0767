"""The live runner: every missing call of a pass in one async pool.

Concurrency per (provider, model) adapts (see `limiter`). This is the only retry layer:
the SDK clients run with `max_retries=0`, so every 429 reaches the limiter; only
retryable errors are retried, with backoff and at least their Retry-After. Each finished
call is committed to the store before the next one is counted.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from typing import Protocol

from locoscore.judge.cache import CachedVerdict, JudgeStore
from locoscore.judge.call_errors import CallError, classify_error
from locoscore.judge.cost import estimate_prompt_tokens
from locoscore.judge.limiter import AdaptiveLimiter
from locoscore.judge.parsing import parse_verdict
from locoscore.judge.plan import CallPlan, CallSpec, JudgmentRow, base_row, render_prompt
from locoscore.judge.providers import JudgeClient, Reply, make_client
from locoscore.judge.settings import ResolvedJudge

STOPPED_PREFIX = "not run: "
# A call answered 429 this many times is given up (recorded as failed, retried on rerun).
MAX_RATE_LIMITED_RETRIES = 100
# Non-retryable refusals (quota, HTTP 400) in a row, with no success between, that stop a pass.
MAX_REFUSALS_IN_A_ROW = 5


class ProgressSink(Protocol):
    def start(self, total: int, done: int, cached: int) -> None: ...

    def update(self, rows: list[JudgmentRow], cost_usd: float | None) -> None: ...

    def status(self, text: str) -> None: ...

    def stop(self) -> None: ...


@dataclass
class RunStats:
    made: int = 0  # HTTP requests sent (including retries)
    cached: int = 0
    failed: int = 0
    skipped: int = 0
    short_circuited: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True


@dataclass
class JudgeRun:
    rows: list[JudgmentRow]
    stats: RunStats
    stop_reason: str | None = None
    pending_batch: str | None = None
    # The structured-output mode the pass's calls used (None: no call was made).
    response_format: str | None = None


def row_from_reply(
    judge: ResolvedJudge,
    spec: CallSpec,
    reply: Reply,
    latency_s: float,
    store: JudgeStore | None,
) -> JudgmentRow:
    """Parse one reply, commit it to the store when it carries a verdict, return its row."""
    row = base_row(judge, spec.record, spec.run_index, spec.key)
    row.input_tokens, row.output_tokens = reply.input_tokens, reply.output_tokens
    row.latency_s = round(latency_s, 4)
    if reply.refusal:
        # A refusal is not a verdict: never cached, recorded as a failure.
        row.error = f"refused by the provider (stop reason {reply.stop_reason})"
        return row
    verdict = parse_verdict(judge.protocol, reply.structured, reply.text, truncated=reply.truncated)
    row.method = verdict.method
    if not verdict.ok:
        row.error = verdict.error or "unscored"
        if reply.truncated:
            row.error = f"{row.error} (reply truncated at max_tokens)"
        return row
    row.score, row.explanation = verdict.score, verdict.explanation
    if store is not None:
        store.put(
            CachedVerdict(
                spec.key,
                spec.record.key,
                spec.run_index,
                verdict.score,
                verdict.explanation,
                verdict.method,
                reply.raw,
                reply.input_tokens,
                reply.output_tokens,
                row.latency_s,
            ),
            provider=judge.provider,
            model=judge.model,
            protocol=judge.protocol,
            prompt_hash=judge.prompt_hash,
            params=judge.cache_params(),
        )
    return row


def failed_row(judge: ResolvedJudge, spec: CallSpec, error: str) -> JudgmentRow:
    row = base_row(judge, spec.record, spec.run_index, spec.key)
    row.error = error
    return row


def _units(missing: list[CallSpec], per_request: int) -> list[list[CallSpec]]:
    """Group the runs of one question into requests of up to `per_request` runs (`n`)."""
    if per_request <= 1:
        return [[spec] for spec in missing]
    by_question: dict[str, list[CallSpec]] = {}
    for spec in missing:
        by_question.setdefault(spec.record.key, []).append(spec)
    units = []
    for specs in by_question.values():
        for start in range(0, len(specs), per_request):
            units.append(specs[start : start + per_request])
    return units


class Runner:
    def __init__(
        self,
        judge: ResolvedJudge,
        store: JudgeStore | None,
        *,
        client: JudgeClient | None = None,
        progress: ProgressSink | None = None,
        base_delay_s: float | None = None,
        max_delay_s: float = 30.0,
        initial_concurrency: int | None = None,
    ) -> None:
        self.judge = judge
        self.store = store
        self.client = client
        self.progress = progress
        self.base_delay_s = (
            judge.settings.retry_base_delay_s if base_delay_s is None else base_delay_s
        )
        self.max_delay_s = max_delay_s
        settings = judge.settings
        self.limiter = AdaptiveLimiter(settings.concurrency, initial_concurrency)
        self.per_request = judge.n_per_request
        self.stats = RunStats()
        self.rows: list[JudgmentRow] = []
        self.stop_reason: str | None = None
        self._refusal_streak = 0
        self._reserved_usd = 0.0

    # ---------------------------------------------------------------- budget

    def _estimated_cost(self, unit: list[CallSpec], prompt: str) -> float:
        s = self.judge.settings
        cost = s.prices.cost(self.judge.model, estimate_prompt_tokens(prompt), 60 * len(unit))
        return cost or 0.0

    def _over_budget(self, estimate: float) -> bool:
        cap = self.judge.settings.max_cost_usd
        return cap is not None and self.stats.cost_usd + self._reserved_usd + estimate > cap

    # ---------------------------------------------------------------- results

    def _record(self, rows: list[JudgmentRow]) -> None:
        for row in rows:
            self.stats.input_tokens += row.input_tokens
            self.stats.output_tokens += row.output_tokens
            cost = self.judge.settings.prices.cost(
                self.judge.model, row.input_tokens, row.output_tokens
            )
            if cost is None:
                self.stats.cost_known = False
            else:
                self.stats.cost_usd += cost
            if row.score is None:
                if row.error and row.error.startswith(STOPPED_PREFIX):
                    self.stats.skipped += 1
                else:
                    self.stats.failed += 1
        self.rows.extend(rows)
        if self.progress is not None:
            self.progress.update(rows, self.stats.cost_usd if self.stats.cost_known else None)

    # ---------------------------------------------------------------- one unit

    async def _call_unit(self, unit: list[CallSpec], queue: asyncio.Queue[list[CallSpec]]) -> None:
        assert self.client is not None
        record = unit[0].record
        attempt = 0  # failed attempts: 5xx, timeouts, connection errors
        paced = 0  # 429s: the provider pacing us, not failing; bounded separately
        while True:
            if self.stop_reason is not None:
                self._record(
                    [failed_row(self.judge, s, STOPPED_PREFIX + self.stop_reason) for s in unit]
                )
                return
            prompt = render_prompt(self.judge, record)
            estimate = self._estimated_cost(unit, prompt)
            epoch = await self.limiter.acquire()
            # Checked once a slot is free: calls that finished meanwhile have been paid.
            if self.stop_reason is None and self._over_budget(estimate):
                self.stop_reason = (
                    f"--max-cost {self.judge.settings.max_cost_usd:g} USD would be exceeded"
                )
            if self.stop_reason is not None:
                await self.limiter.release()
                continue
            self._reserved_usd += estimate
            started = time.monotonic()
            error: CallError | None = None
            replies: list[Reply] = []
            try:
                self.stats.made += 1
                replies = await asyncio.wait_for(
                    self.client.complete(prompt, len(unit)),
                    self.judge.settings.timeout_s + 5.0,
                )
            except Exception as exc:  # every SDK error is classified, none escapes
                error = classify_error(exc)
            finally:
                self._reserved_usd -= estimate
                await self.limiter.release()
            latency = time.monotonic() - started
            if error is not None and error.kind == "response_format_downgraded":
                # Negotiated with a compatible server: send again at once in the next mode.
                if self.progress is not None:
                    self.progress.status(error.message)
                continue
            if error is None:
                self.limiter.on_success(epoch)
                self._refusal_streak = 0
                served = unit[: len(replies)]
                rows = [
                    row_from_reply(self.judge, spec, reply, latency, self.store)
                    for spec, reply in zip(served, replies, strict=False)
                ]
                self._record(rows)
                rest = unit[len(replies) :]
                if rest:
                    # The backend ignored `n`: fall back to one run per request.
                    self.per_request = 1
                    for spec in rest:
                        queue.put_nowait([spec])
                return
            if error.kind == "rate_limit":
                paced += 1
                self.limiter.on_rate_limited(error.retry_after, epoch)
            else:
                attempt += 1
                if error.retryable:
                    self.limiter.on_transient_error()
            if error.kind in ("quota", "client_error"):
                # Five refusals in a row with no success between: every further call would
                # be refused the same way (no credit left, a request shape the API rejects).
                self._refusal_streak += 1
                if self._refusal_streak >= MAX_REFUSALS_IN_A_ROW:
                    error = CallError(error.kind, error.message, retryable=False, fatal=True)
            if error.fatal and self.stop_reason is None:
                self.stop_reason = error.message
            if error.retryable and (
                attempt < self.judge.settings.max_attempts and paced < MAX_RATE_LIMITED_RETRIES
            ):
                await asyncio.sleep(self._delay(max(1, attempt + paced), error))
                continue
            self._record(
                [failed_row(self.judge, s, f"{error.kind}: {error.message}") for s in unit]
            )
            return

    def _delay(self, attempt: int, error: CallError) -> float:
        """The server's Retry-After when it gives one (plus up to 10 % jitter so waiting
        calls do not return in one burst); else exponential backoff with jitter."""
        if error.retry_after is not None:
            return error.retry_after * (1.0 + random.random() / 10)
        backoff = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
        return backoff * (0.5 + random.random() / 2)

    # ---------------------------------------------------------------- the pool

    async def run(self, plan: CallPlan) -> JudgeRun:
        self.stats.cached = plan.cached
        self.stats.short_circuited = plan.short_circuited
        total = len(plan.done) + len(plan.missing)
        if self.progress is not None:
            self.progress.start(total, len(plan.done), plan.cached)
        self.rows.extend(plan.done)
        owns_client = self.client is None
        if plan.missing and self.client is None:
            self.client = make_client(self.judge.provider_config())
        queue: asyncio.Queue[list[CallSpec]] = asyncio.Queue()
        for unit in _units(plan.missing, self.per_request):
            queue.put_nowait(unit)

        async def worker() -> None:
            while True:
                try:
                    unit = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                await self._call_unit(unit, queue)

        try:
            # Again while an `n` fallback re-queued units after the workers drained the queue.
            while not queue.empty():
                workers = min(self.judge.settings.concurrency, queue.qsize())
                await asyncio.gather(*(worker() for _ in range(workers)))
        finally:
            if owns_client and self.client is not None:
                await self.client.aclose()
            if self.progress is not None:
                self.progress.stop()
        self.rows.sort(key=lambda r: (r.key, r.run))
        mode = self.client.response_format if plan.missing and self.client else None
        return JudgeRun(self.rows, self.stats, self.stop_reason, response_format=mode)


async def run_plan(
    judge: ResolvedJudge,
    plan: CallPlan,
    store: JudgeStore | None,
    *,
    client: JudgeClient | None = None,
    progress: ProgressSink | None = None,
    initial_concurrency: int | None = None,
) -> JudgeRun:
    runner = Runner(
        judge, store, client=client, progress=progress, initial_concurrency=initial_concurrency
    )
    return await runner.run(plan)
