"""Batch mode (half price): Anthropic Message Batches and OpenAI Batch.

Every missing call is submitted with its cache key as `custom_id`; the batch id is written
to the store before any waiting, so a restart resumes polling the same batch instead of
paying for a second one. Results are unordered and matched by `custom_id`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

from locoscore.errors import LocoscoreError
from locoscore.judge.cache import JudgeStore
from locoscore.judge.plan import CallPlan, CallSpec, JudgmentRow, render_prompt
from locoscore.judge.runner import (
    STOPPED_PREFIX,
    JudgeCalls,
    JudgeRun,
    ProgressSink,
    failed_row,
    finish_run,
    report_rows,
    row_from_reply,
)
from locoscore.judge.settings import ResolvedJudge
from locoscore.llm.call_errors import classify_error, redact_secrets
from locoscore.llm.cost import EXPECTED_OUTPUT_TOKENS, estimate_prompt_tokens
from locoscore.llm.endpoint import Served
from locoscore.llm.providers import (
    AnthropicClient,
    LLMClient,
    OpenAIClient,
    make_client,
    replies_from_openai,
    reply_from_anthropic,
)

T = TypeVar("T")
_OPENAI_DONE = ("completed", "failed", "expired", "cancelled")
# Requests per batch the providers accept (a full LoCoMo pass, 15,400 calls, fits in one).
MAX_BATCH_REQUESTS = {"anthropic": 100_000, "openai": 50_000, "openai-compatible": 50_000}


class BatchProviderError(LocoscoreError):
    """A batch endpoint failed for good; the message is classified and has no secrets."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


async def _retrying(call: Callable[[], Awaitable[T]], attempts: int = 6) -> T:
    """Batch endpoints share the call layer's policy: retry only what is retryable."""
    for attempt in range(1, attempts + 1):
        try:
            return await call()
        except Exception as exc:
            error = classify_error(exc)
            if not error.retryable or attempt == attempts:
                # Not the SDK's exception: its text may carry an echoed key, and the CLI
                # shows a LocoscoreError as one line instead of a traceback.
                raise BatchProviderError(
                    f"batch request failed: {error.kind}: {error.message}", error.kind
                ) from None
            await asyncio.sleep(max(error.retry_after or 0.0, min(10.0, 0.2 * 2**attempt)))
    raise AssertionError("unreachable")


class BatchRunner(JudgeCalls):
    store: JudgeStore  # a batch is resumed from the folder's cache: there always is one

    def __init__(
        self,
        judge: ResolvedJudge,
        store: JudgeStore,
        *,
        client: LLMClient | None = None,
        progress: ProgressSink | None = None,
        poll_interval_s: float = 30.0,
        max_wait_s: float = 24 * 3600.0,
        job: str = "judge",
    ) -> None:
        super().__init__(judge, store, client, progress, job)
        self.poll_interval_s = poll_interval_s
        self.max_wait_s = max_wait_s

    # ------------------------------------------------------------ provider specifics

    async def _submit(self, specs: list[CallSpec]) -> str:
        client = self.client
        judge = self.judge
        prompts = [render_prompt(judge, s.item) for s in specs]
        if isinstance(client, AnthropicClient):
            requests: Any = [
                {"custom_id": s.key, "params": client.request_params(p)}
                for s, p in zip(specs, prompts, strict=True)
            ]
            batches = client.client.messages.batches
            batch = await _retrying(lambda: batches.create(requests=requests))
            return str(batch.id)
        assert isinstance(client, OpenAIClient)
        lines = [
            json.dumps(
                {
                    "custom_id": s.key,
                    "method": "POST",
                    "url": "/v1/chat/completions",
                    "body": client.request_params(p),
                }
            )
            for s, p in zip(specs, prompts, strict=True)
        ]
        data = ("\n".join(lines) + "\n").encode("utf-8")
        upload = await _retrying(
            lambda: client.client.files.create(
                file=("locoscore_judge_batch.jsonl", data, "application/jsonl"), purpose="batch"
            )
        )
        created = await _retrying(
            lambda: client.client.batches.create(
                input_file_id=upload.id,
                endpoint="/v1/chat/completions",
                completion_window="24h",
            )
        )
        return str(created.id)

    async def _poll(self, batch_id: str) -> tuple[bool, str]:
        """Whether the batch has ended, and its status for the progress line."""
        client = self.client
        if isinstance(client, AnthropicClient):
            batch = await _retrying(lambda: client.client.messages.batches.retrieve(batch_id))
            counts = batch.request_counts
            text = f"{batch.processing_status}, {counts.processing} processing"
            return batch.processing_status == "ended", text
        assert isinstance(client, OpenAIClient)
        status = await _retrying(lambda: client.client.batches.retrieve(batch_id))
        text = status.status
        if status.request_counts is not None:
            rc = status.request_counts
            text += f", {rc.completed + rc.failed}/{rc.total} done"
        return status.status in _OPENAI_DONE, text

    async def _results(self, batch_id: str) -> dict[str, tuple[dict[str, Any] | None, str]]:
        """custom_id -> (reply body, "") on success, (None, reason) on failure."""
        client = self.client
        out: dict[str, tuple[dict[str, Any] | None, str]] = {}
        if isinstance(client, AnthropicClient):
            decoder = await _retrying(lambda: client.client.messages.batches.results(batch_id))
            async for item in decoder:
                result = item.result
                if result.type == "succeeded":
                    out[item.custom_id] = (result.message.model_dump(mode="json"), "")
                else:
                    detail = getattr(result, "error", None)
                    reason = f"batch entry {result.type}"
                    if detail is not None:
                        text = redact_secrets(json.dumps(detail.model_dump(mode="json")))
                        reason += f": {text[:300]}"
                    out[item.custom_id] = (None, reason)
            return out
        assert isinstance(client, OpenAIClient)
        status = await _retrying(lambda: client.client.batches.retrieve(batch_id))
        for file_id in (status.output_file_id, status.error_file_id):
            if not file_id:
                continue
            content = await _retrying(partial(client.client.files.content, file_id))
            for line in content.text.splitlines():
                if not line.strip():
                    continue
                entry = json.loads(line)
                response = entry.get("response") or {}
                if entry.get("error") or response.get("status_code", 200) >= 400:
                    reason = redact_secrets(json.dumps(entry.get("error") or response.get("body")))
                    reason = reason[:300]
                    out[entry["custom_id"]] = (None, f"batch entry errored: {reason}")
                else:
                    out[entry["custom_id"]] = (response.get("body") or {}, "")
        return out

    async def _wait_for(self, batch_id: str, deadline: float) -> str:
        """Poll until the batch ends: "ended", "pending" (out of time) or "lost" (404)."""
        while True:
            try:
                done, text = await self._poll(batch_id)
            except BatchProviderError as exc:
                if exc.kind == "not_found":
                    return "lost"
                raise
            if self.progress is not None:
                self.progress.status(f"batch {batch_id}: {text}")
            if done:
                return "ended"
            if time.monotonic() >= deadline:
                return "pending"
            await asyncio.sleep(self.poll_interval_s)

    # ------------------------------------------------------------ budget

    def _within_budget(self, specs: list[CallSpec]) -> tuple[list[CallSpec], list[CallSpec]]:
        """The calls whose estimated batch cost fits --max-cost (in plan order), and the rest.
        Batches already submitted by an earlier invocation were paid for by that one."""
        settings = self.judge.settings
        cap = settings.max_cost_usd
        if cap is None:
            return specs, []
        output_tokens = EXPECTED_OUTPUT_TOKENS.get(self.judge.protocol, 60)
        total = 0.0
        for i, spec in enumerate(specs):
            prompt_tokens = estimate_prompt_tokens(render_prompt(self.judge, spec.item))
            cost = settings.prices.cost(self.judge.model, prompt_tokens, output_tokens, batch=True)
            total += cost or 0.0
            if total > cap:
                return specs[:i], specs[i:]
        return specs, []

    # ------------------------------------------------------------ the pass

    def _ingest(
        self,
        batch_id: str,
        specs: dict[str, CallSpec],
        keys: list[str],
        results: dict[str, Any],
        missing_reason: str = "no result for this entry (batch expired?)",
        state: str = "ingested",
    ) -> None:
        rows: list[JudgmentRow] = []
        for key in keys:
            spec = specs.get(key)
            if spec is None:
                continue  # an entry of an older pass no longer asked for
            body, reason = results.get(key, (None, missing_reason))
            self.stats.made += 1  # a batch entry is a call, counted when collected
            if body is not None:
                self.stats.judgments += 1
            if body is None:
                rows.append(failed_row(self.judge, spec, reason))
                continue
            fake = self.client is not None and self.client.wire.fake
            if self.judge.provider == "anthropic":
                reply = reply_from_anthropic(body, fake=fake)
            else:
                replies = replies_from_openai(body, fake=fake)
                if not replies:
                    rows.append(failed_row(self.judge, spec, "batch entry without choices"))
                    continue
                reply = replies[0]
            rows.append(row_from_reply(self.judge, spec, reply, 0.0, self.store))
        for row in rows:
            self.stats.input_tokens += row.input_tokens
            self.stats.output_tokens += row.output_tokens
            if row.score is None:
                self.stats.failed += 1
        self.rows.extend(rows)
        self._price()
        if self.ledger is not None:
            self.ledger.record(self.stats.now())
        if self.progress is not None:
            cost = self.stats.cost_usd if self.stats.cost_known else None
            report_rows(self.progress, rows, cost, self.stats.made)
        self.store.finish_batch(batch_id, state)

    def _price(self) -> None:
        """The pass's cost so far, at batch prices."""
        cost = self.judge.settings.prices.cost(
            self.judge.model, self.stats.input_tokens, self.stats.output_tokens, batch=True
        )
        if Served.of((r.served_model, r.fake) for r in self.rows).mismatches(self.judge.model):
            cost = None  # another model served: no price applies
        self.stats.cost_usd = cost or 0.0
        self.stats.cost_known = cost is not None

    async def run(self, plan: CallPlan) -> JudgeRun:
        judge = self.judge
        self.stats.cached = plan.cached
        self.stats.short_circuited = plan.short_circuited
        self.rows.extend(plan.done)
        specs = {s.key: s for s in plan.missing}
        stop_reason: str | None = None
        owns_client = self.client is None
        if specs and self.client is None:
            self.client = make_client(judge.provider_config())
        if self.progress is not None:
            self.progress.start(len(plan.done) + len(specs), len(plan.done), plan.cached)
        try:
            pending = [
                b
                for b in self.store.pending_batches(judge.provider, judge.model)
                if any(k in specs for k in b.keys)
            ]
            covered = {k for b in pending for k in b.keys}
            to_submit, over_budget = self._within_budget(
                [s for s in plan.missing if s.key not in covered]
            )
            if over_budget:
                stop_reason = f"--max-cost {judge.settings.max_cost_usd:g} USD would be exceeded"
                self.rows += [
                    failed_row(judge, s, STOPPED_PREFIX + stop_reason) for s in over_budget
                ]
                self.stats.skipped += len(over_budget)
            batches = [(b.batch_id, b.keys) for b in pending]
            size = MAX_BATCH_REQUESTS[judge.provider]
            for start in range(0, len(to_submit), size):
                chunk = to_submit[start : start + size]
                batch_id = await self._submit(chunk)
                keys = [s.key for s in chunk]
                # Recorded before any waiting: a restart resumes this batch, never resubmits.
                self.store.add_batch(batch_id, judge.provider, judge.model, keys)
                batches.append((batch_id, keys))
            deadline = time.monotonic() + self.max_wait_s
            for batch_id, keys in batches:
                state = await self._wait_for(batch_id, deadline)
                if state == "pending":
                    return JudgeRun(self.rows, self.stats, pending_batch=batch_id)
                if state == "lost":
                    # The provider no longer knows it (deleted, or another account): its
                    # calls fail now and are submitted afresh on the next run.
                    reason = f"batch {batch_id} is unknown to the provider; rerun to resubmit"
                    self._ingest(batch_id, specs, keys, {}, reason, state="lost")
                    continue
                self._ingest(batch_id, specs, keys, await self._results(batch_id))
        finally:
            if owns_client and self.client is not None:
                await self.client.aclose()
            if self.progress is not None:
                self.progress.stop()
        self._price()
        mode = self.client.response_format if self.client is not None else None
        return finish_run(JudgeRun(self.rows, self.stats, stop_reason, response_format=mode), judge)
