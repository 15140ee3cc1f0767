"""The one retry layer: every model call of a pass goes through a `CallPool`.

The SDK clients run with `max_retries=0`, so every 429 reaches the adaptive limiter (see
`limiter`); only retryable errors are retried, with backoff and at least their Retry-After.
The pool also owns the stop conditions shared by every pass: a cost cap checked once a slot
is free (calls that finished meanwhile have been paid), fatal errors, and five non-retryable
refusals in a row. Callers own what a result means (a verdict, an answer).

`Outcome.latency_s` is the successful attempt alone: not time queued for a slot, not time
spent waiting out a 429 or a failed attempt.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from locoscore.llm.call_errors import CallError, classify_error
from locoscore.llm.limiter import AdaptiveLimiter

T = TypeVar("T")

# A call answered 429 this many times is given up (recorded as failed, retried on rerun).
MAX_RATE_LIMITED_RETRIES = 100
# Non-retryable refusals (quota, HTTP 400) in a row, with no success between, that stop a pass.
MAX_REFUSALS_IN_A_ROW = 5


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """A call's end: a value, or the error it failed with, or the reason it was not sent."""

    value: T | None = None
    error: CallError | None = None
    latency_s: float = 0.0
    stopped: str | None = None  # why the pass stopped before this call could run
    served_s: float | None = None  # of latency_s, the time the server says it served

    @property
    def ok(self) -> bool:
        return self.error is None and self.stopped is None


@dataclass
class RetryPolicy:
    max_attempts: int = 6  # failed attempts per call (5xx, timeouts), for retryable errors
    base_delay_s: float = 0.5  # backoff doubles per attempt; Retry-After wins if given
    max_delay_s: float = 30.0
    timeout_s: float = 60.0  # the client's own timeout; the pool waits a little longer

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """The server's Retry-After when it gives one (plus up to 10 % jitter so waiting
        calls do not return in one burst); else exponential backoff with jitter."""
        if retry_after is not None:
            return retry_after * (1.0 + random.random() / 10)
        backoff = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
        return backoff * (0.5 + random.random() / 2)


class CallPool:
    def __init__(
        self,
        limiter: AdaptiveLimiter,
        policy: RetryPolicy,
        *,
        max_cost_usd: float | None = None,
        on_status: Callable[[str], None] | None = None,
    ) -> None:
        self.limiter = limiter
        self.policy = policy
        self.max_cost_usd = max_cost_usd
        self.on_status = on_status
        self.made = 0  # requests sent, retries included
        # Failed attempts sent again, by kind ("timeout", "rate_limit", "server", ...): the
        # requests `made` beyond one per call.
        self.retries: Counter[str] = Counter()
        self.spent_usd = 0.0  # what finished calls cost (from `cost_of`)
        self.stop_reason: str | None = None
        self._reserved_usd = 0.0
        self._refusal_streak = 0

    def _over_budget(self, estimate: float) -> bool:
        cap = self.max_cost_usd
        return cap is not None and self.spent_usd + self._reserved_usd + estimate > cap

    def stop(self, reason: str) -> None:
        if self.stop_reason is None:
            self.stop_reason = reason

    async def call(
        self,
        send: Callable[[], Awaitable[T]],
        estimate_usd: float = 0.0,
        cost_of: Callable[[T], float | None] | None = None,
        served_of: Callable[[T], float | None] | None = None,
    ) -> Outcome[T]:
        """Send (again while retryable) until a value, a final error, or a stop.

        `cost_of(value)` is what a successful call cost: added to `spent_usd` before its
        reservation is released, so a concurrent budget check never sees neither.
        `served_of(value)`: the seconds the server says it spent serving the call (the rest
        of the latency was spent queued there), when it says."""
        attempt = 0  # failed attempts: 5xx, timeouts, connection errors
        paced = 0  # 429s: the provider pacing us, not failing; bounded separately
        while True:
            if self.stop_reason is not None:
                return Outcome(stopped=self.stop_reason)
            epoch = await self.limiter.acquire()
            if self.stop_reason is None and self._over_budget(estimate_usd):
                self.stop(f"--max-cost {self.max_cost_usd:g} USD would be exceeded")
            if self.stop_reason is not None:
                await self.limiter.release()
                continue
            self._reserved_usd += estimate_usd
            started = time.monotonic()
            error: CallError | None = None
            value: T | None = None
            try:
                self.made += 1
                value = await asyncio.wait_for(send(), self.policy.timeout_s + 5.0)
                if cost_of is not None:
                    self.spent_usd += cost_of(value) or 0.0
            except Exception as exc:  # every SDK error is classified, none escapes
                error = classify_error(exc)
            finally:
                self._reserved_usd -= estimate_usd
                await self.limiter.release()
            latency = time.monotonic() - started
            if error is None:
                served = served_of(value) if served_of is not None and value is not None else None
                self.limiter.on_success(epoch, latency, served)
                self._refusal_streak = 0
                return Outcome(value=value, latency_s=latency, served_s=served)
            if error.kind == "response_format_downgraded":
                # Negotiated with a compatible server: send again at once in the next mode.
                self.retries["response_format"] += 1
                if self.on_status is not None:
                    self.on_status(error.message)
                continue
            if error.kind == "rate_limit":
                paced += 1
                self.limiter.on_rate_limited(error.retry_after, epoch)
            else:
                attempt += 1
                if error.retryable:
                    self.limiter.on_transient_error(epoch, error.pressure)
            if error.kind in ("quota", "client_error"):
                # Five refusals in a row with no success between: every further call would
                # be refused the same way (no credit left, a request shape the API rejects).
                self._refusal_streak += 1
                if self._refusal_streak >= MAX_REFUSALS_IN_A_ROW:
                    error = CallError(error.kind, error.message, retryable=False, fatal=True)
            if error.fatal:
                self.stop(error.message)
            if error.retryable and (
                attempt < self.policy.max_attempts and paced < MAX_RATE_LIMITED_RETRIES
            ):
                self.retries[error.kind] += 1
                await asyncio.sleep(self.policy.delay(max(1, attempt + paced), error.retry_after))
                continue
            return Outcome(error=error, latency_s=latency)
