"""The judge's live runner: every missing call of a pass through one `CallPool`.

The pool (`locoscore.llm.pool`) is the one retry layer and owns the adaptive concurrency,
the cost cap and the stop conditions; this module turns replies into verdict rows. Each
finished call is committed to the store before the next one is counted.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from locoscore.judge.cache import CachedVerdict, JudgeStore
from locoscore.judge.parsing import parse_verdict
from locoscore.judge.plan import CallPlan, CallSpec, JudgmentRow, base_row, render_prompt
from locoscore.judge.settings import ResolvedJudge
from locoscore.llm.choices import split
from locoscore.llm.cost import estimate_prompt_tokens
from locoscore.llm.endpoint import Served
from locoscore.llm.ledger import Ledger, Spend
from locoscore.llm.limiter import AdaptiveLimiter
from locoscore.llm.local_server import (
    ServerFacts,
    concurrency_plan,
    count_usage_locally,
    discover,
)
from locoscore.llm.pool import CallPool, RetryPolicy
from locoscore.llm.pooled_client import PooledClient, PoolLimiter
from locoscore.llm.progress import ProgressSink
from locoscore.llm.providers import LLMClient, Reply, make_client

__all__ = ["JudgeRun", "ProgressSink", "RunStats", "Runner", "report_rows", "run_plan"]

STOPPED_PREFIX = "not run: "


@dataclass
class RunStats:
    """This attempt's calls (`earlier`: what earlier attempts of the same pass paid)."""

    made: int = 0  # HTTP requests sent (including retries)
    judgments: int = 0  # verdicts the API returned (a request with n > 1 returns several)
    cached: int = 0
    failed: int = 0
    skipped: int = 0
    short_circuited: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True
    usage_counted_locally: bool = False  # the server reported no usage: tiktoken counts
    retries: dict[str, int] = field(default_factory=dict)  # attempts sent again, by kind
    earlier: Spend = field(default_factory=Spend)

    def now(self) -> Spend:
        cost = self.cost_usd if self.cost_known else None
        return Spend(self.made, self.judgments, self.input_tokens, self.output_tokens, cost)


def open_ledger(store: JudgeStore | None, job: str, judge: ResolvedJudge) -> Ledger | None:
    """The pass's attempts, in the folder's cache file (`job`: "judge", "audit")."""
    return None if store is None else Ledger(store.conn, f"{job}|{judge.signature}")


@dataclass
class JudgeRun:
    rows: list[JudgmentRow]
    stats: RunStats
    stop_reason: str | None = None
    pending_batch: str | None = None
    # The structured-output mode the pass's calls used (None: no call was made).
    response_format: str | None = None
    concurrency: dict[str, Any] | None = None  # calls in flight as they went (None: no call)
    # Who made the verdicts, live or cached: the served model(s), and whether it was the fake.
    served: Served = field(default_factory=Served)
    cost_unknown_reason: str | None = None


def row_from_reply(
    judge: ResolvedJudge,
    spec: CallSpec,
    reply: Reply,
    latency_s: float,
    store: JudgeStore | None,
) -> JudgmentRow:
    """Parse one reply, commit it to the store when it carries a verdict, return its row."""
    row = base_row(judge, spec.item, spec.run_index, spec.key)
    row.input_tokens, row.output_tokens = reply.input_tokens, reply.output_tokens
    row.latency_s = round(latency_s, 4)
    row.served_model, row.fake = reply.model or "", reply.fake
    if reply.refusal:
        # A refusal is not a verdict: never cached, recorded as a failure.
        row.error = f"refused by the provider (stop reason {reply.stop_reason})"
        return row
    reader = judge.template.reader
    verdict = (
        reader.read(reply.structured, reply.text)
        if reader is not None
        else parse_verdict(
            judge.protocol,
            reply.structured,
            reply.text,
            truncated=reply.truncated,
            scale=judge.template.scale,
        )
    )
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
                spec.item.key,
                spec.run_index,
                verdict.score,
                verdict.explanation,
                verdict.method,
                reply.raw,
                reply.input_tokens,
                reply.output_tokens,
                row.latency_s,
                row.served_model,
                row.fake,
            ),
            judge.cache_identity(),
        )
    return row


def failed_row(judge: ResolvedJudge, spec: CallSpec, error: str) -> JudgmentRow:
    row = base_row(judge, spec.item, spec.run_index, spec.key)
    row.error = error
    return row


def _units(missing: list[CallSpec], per_request: int) -> list[list[CallSpec]]:
    """Group the runs of one question into requests of up to `per_request` runs (`n`)."""
    if per_request <= 1:
        return [[spec] for spec in missing]
    by_question: dict[str, list[CallSpec]] = {}
    for spec in missing:
        by_question.setdefault(spec.item.key, []).append(spec)
    units = []
    for specs in by_question.values():
        for start in range(0, len(specs), per_request):
            units.append(specs[start : start + per_request])
    return units


def report_rows(
    progress: ProgressSink | None, rows: list[JudgmentRow], cost: float | None, calls: int
) -> None:
    if progress is not None:
        failed = sum(1 for r in rows if r.score is None)
        tokens = sum(r.input_tokens + r.output_tokens for r in rows)
        progress.update(len(rows), failed, tokens, cost, calls)


class JudgeCalls:
    """What a judge pass keeps while it makes its calls, one at a time (`Runner`) or as a
    batch (`batch.BatchRunner`): the judge, its cache and ledger, the rows and counts so far."""

    def __init__(
        self,
        judge: ResolvedJudge,
        store: JudgeStore | None,
        client: LLMClient | None,
        progress: ProgressSink | None,
        job: str,
    ) -> None:
        self.judge = judge
        self.store = store
        self.ledger = open_ledger(store, job, judge)
        self.client = client
        self.progress = progress
        self.stats = RunStats()
        if self.ledger is not None:
            self.stats.earlier = self.ledger.earlier
        self.rows: list[JudgmentRow] = []


class Runner(JudgeCalls):
    def __init__(
        self,
        judge: ResolvedJudge,
        store: JudgeStore | None,
        *,
        client: LLMClient | None = None,
        progress: ProgressSink | None = None,
        base_delay_s: float | None = None,
        max_delay_s: float = 30.0,
        initial_concurrency: int | None = None,
        job: str = "judge",
    ) -> None:
        super().__init__(judge, store, client, progress, job)
        settings = judge.settings
        self.limiter = AdaptiveLimiter(
            settings.concurrency,
            initial_concurrency,
            backpressure=judge.provider == "openai-compatible",
        )
        self.initial_concurrency = initial_concurrency
        self.concurrency_source = "default"
        policy = RetryPolicy(
            max_attempts=settings.max_attempts,
            base_delay_s=settings.retry_base_delay_s if base_delay_s is None else base_delay_s,
            max_delay_s=max_delay_s,
            timeout_s=settings.timeout_s,
        )
        self.pool = CallPool(
            self.limiter,
            policy,
            max_cost_usd=settings.max_cost_usd,
            on_status=progress.status if progress is not None else None,
        )
        self.per_request = judge.n_per_request
        # (served model, fake) of every live reply: cached verdicts from another are stale.
        self.live_served: set[tuple[str, bool]] = set()

    @property
    def stop_reason(self) -> str | None:
        return self.pool.stop_reason

    def _cost(self, replies: list[Reply]) -> float | None:
        prices, model = self.judge.settings.prices, self.judge.model
        costs = [
            prices.cost(model, r.input_tokens, r.output_tokens, served=r.model) for r in replies
        ]
        return sum(c for c in costs if c is not None)

    def _estimated_cost(self, unit: list[CallSpec], prompt: str) -> float:
        s = self.judge.settings
        cost = s.prices.cost(self.judge.model, estimate_prompt_tokens(prompt), 60 * len(unit))
        return cost or 0.0

    # ---------------------------------------------------------------- results

    def _record(self, rows: list[JudgmentRow]) -> None:
        for row in rows:
            self.stats.input_tokens += row.input_tokens
            self.stats.output_tokens += row.output_tokens
            cost = self.judge.settings.prices.cost(
                self.judge.model, row.input_tokens, row.output_tokens, served=row.served_model
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
        self.stats.made = self.pool.made
        self.stats.retries = dict(self.pool.retries)
        if self.ledger is not None:
            self.ledger.record(self.stats.now())
        cost = self.stats.cost_usd if self.stats.cost_known else None
        report_rows(self.progress, rows, cost, self.stats.made)

    # ---------------------------------------------------------------- one unit

    async def _call_unit(self, unit: list[CallSpec], queue: asyncio.Queue[list[CallSpec]]) -> None:
        client = self.client
        assert client is not None
        prompt = render_prompt(self.judge, unit[0].item)
        n = len(unit)
        outcome = await self.pool.call(
            lambda: client.complete(prompt, n), self._estimated_cost(unit, prompt), self._cost
        )
        if outcome.stopped is not None:
            self._record(
                [failed_row(self.judge, s, STOPPED_PREFIX + outcome.stopped) for s in unit]
            )
            return
        if outcome.error is not None and outcome.error.kind == "n_refused":
            # The server takes fewer choices a request (the client learnt how many, once for
            # the pass): these runs again in requests it takes; queued units split as taken.
            self.per_request = min(self.per_request, getattr(client, "max_n", None) or 1)
            self.pool.retries["n_refused"] += 1
            for part in split(unit, self.per_request):
                queue.put_nowait(part)
            return
        if outcome.error is not None:
            error = outcome.error
            self._record(
                [failed_row(self.judge, s, f"{error.kind}: {error.message}") for s in unit]
            )
            return
        replies: list[Reply] = outcome.value or []
        if replies and not replies[0].usage_reported:
            replies = count_usage_locally(prompt, replies)
            self.stats.usage_counted_locally = True
        self.live_served.update((r.model or "", r.fake) for r in replies)
        served = unit[: len(replies)]
        self.stats.judgments += len(served)
        rows = [
            row_from_reply(self.judge, spec, reply, outcome.latency_s, self.store)
            for spec, reply in zip(served, replies, strict=False)
        ]
        self._record(rows)
        rest = unit[len(replies) :]
        if rest:
            # The backend ignored `n`: fall back to one run per request.
            self.per_request = 1
            for spec in rest:
                queue.put_nowait([spec])

    # ---------------------------------------------------------------- the pool

    async def run(self, plan: CallPlan) -> JudgeRun:
        self.stats.cached = plan.cached
        self.stats.short_circuited = plan.short_circuited
        total = len(plan.done) + len(plan.missing)
        if self.progress is not None:
            self.progress.start(total, len(plan.done), plan.cached)
        self.rows.extend(plan.done)
        owns_client = self.client is None
        if plan.missing and self.client is None and self.judge.settings.pool is None:
            self.client = make_client(self.judge.provider_config())
        if plan.missing:
            await self._fit_concurrency()
        queue: asyncio.Queue[list[CallSpec]] = asyncio.Queue()
        for unit in _units(plan.missing, self.per_request):
            queue.put_nowait(unit)

        async def worker() -> None:
            while True:
                try:
                    unit = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                if len(unit) > self.per_request:  # planned before the server's limit was known
                    first, *rest = split(unit, self.per_request)
                    for part in rest:
                        queue.put_nowait(part)
                    unit = first
                await self._call_unit(unit, queue)

        try:
            # Again while an `n` fallback re-queued units after the workers drained the queue,
            # or cached verdicts turned out to come from another served model.
            while not queue.empty() or self._requeue_stale(plan, queue):
                if self.client is None:
                    self.client = self._new_client()
                workers = min(self.judge.settings.concurrency, queue.qsize())
                await asyncio.gather(*(worker() for _ in range(workers)))
        finally:
            if owns_client and self.client is not None:
                await self.client.aclose()
            if self.progress is not None:
                self.progress.stop()
        self.rows.sort(key=lambda r: (r.key, r.run))
        asked = plan.missing or self.live_served
        mode = self.client.response_format if asked and self.client else None
        concurrency: dict[str, Any] | None = None
        if plan.missing:
            start = self.initial_concurrency
            concurrency = {
                "initial": start,
                "source": self.concurrency_source,
                **self.limiter.describe(),
            }
            if isinstance(self.client, PooledClient):  # each endpoint's calls and failures
                concurrency["endpoints"] = self.client.describe()
        run = JudgeRun(
            self.rows, self.stats, self.stop_reason, response_format=mode, concurrency=concurrency
        )
        return finish_run(run, self.judge)

    def _new_client(self, facts: list[ServerFacts | None] | None = None) -> Any:
        """The judge's client: one endpoint's, or one over the pool's members."""
        s = self.judge.settings
        if s.pool is None:
            return make_client(self.judge.provider_config())
        known: list[ServerFacts | None] = list(facts or [None] * len(s.pool.members))
        client = PooledClient.of(self.judge.provider_config(), s.pool, known, s.concurrency)
        self.limiter = self.pool.limiter = PoolLimiter(min(s.concurrency, client.capacity))
        self.concurrency_source = f"a pool of {len(s.pool.members)} endpoints"
        self.initial_concurrency = int(self.limiter.limit)
        return client

    async def _fit_concurrency(self) -> None:
        """A compatible server's slots (llama.cpp), asked once: the calls in flight start
        there, or small when it names none, and adapt to its back-pressure."""
        s = self.judge.settings
        if s.pool is not None:
            from locoscore.llm.providers import api_key

            told: list[ServerFacts | None] = [None] * len(s.pool.members)
            if self.judge.provider == "openai-compatible":
                told = [
                    await asyncio.to_thread(
                        discover, m.base_url, self.judge.model, m.api_key() or api_key(s.provider)
                    )
                    for m in s.pool.members
                ]
            slots = [f.slots for f in told if f is not None and f.slots]
            if slots:  # a request's `n` runs on that many slots of one server
                self.per_request = min(self.per_request, min(slots))
            self.client = self._new_client(told)
            return
        if self.judge.provider != "openai-compatible" or not s.base_url:
            self.initial_concurrency = int(self.limiter.limit)
            return
        from locoscore.llm.providers import api_key

        facts = await asyncio.to_thread(discover, s.base_url, self.judge.model, api_key(s.provider))
        if facts.slots:  # llama.cpp runs each choice on a slot and refuses `n` above them
            self.per_request = min(self.per_request, facts.slots)
        start, most, self.concurrency_source = concurrency_plan(
            s.provider, facts, s.concurrency, self.initial_concurrency, self.per_request
        )
        if self.initial_concurrency is not None:  # the caller's start stands (tests, benches)
            start, self.concurrency_source = self.initial_concurrency, "given"
        self.limiter.max_limit = most
        self.limiter.limit = float(min(most, start or most))
        self.initial_concurrency = int(self.limiter.limit)

    def _requeue_stale(self, plan: CallPlan, queue: asyncio.Queue[list[CallSpec]]) -> bool:
        """Cached verdicts whose server served another model than this pass's replies say:
        asked again (once: the new rows are live). True when any was queued."""
        if not self.live_served or self.stop_reason is not None:
            return False
        stale = [
            r for r in self.rows if r.cached and (r.served_model, r.fake) not in self.live_served
        ]
        if not stale:
            return False
        ids = {r.call_id for r in stale}
        self.rows = [r for r in self.rows if r.call_id not in ids]
        self.stats.cached -= len(stale)
        for row in stale:
            queue.put_nowait([plan.hits[row.call_id]])
        return True


def finish_run(run: JudgeRun, judge: ResolvedJudge) -> JudgeRun:
    """Who made the verdicts (`served`), and why the cost is n/a when it is."""
    run.served = Served.of((r.served_model, r.fake) for r in run.rows)
    run.cost_unknown_reason = judge.settings.prices.unknown_reason(judge.model, run.served)
    if run.cost_unknown_reason is not None:
        run.stats.cost_known = False
    return run


async def run_plan(
    judge: ResolvedJudge,
    plan: CallPlan,
    store: JudgeStore | None,
    *,
    client: LLMClient | None = None,
    progress: ProgressSink | None = None,
    initial_concurrency: int | None = None,
    job: str = "judge",
) -> JudgeRun:
    runner = Runner(
        judge,
        store,
        client=client,
        progress=progress,
        initial_concurrency=initial_concurrency,
        job=job,
    )
    return await runner.run(plan)
