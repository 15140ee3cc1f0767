"""Adaptive concurrency per (provider, model): shrink on 429s, grow while healthy.

Slow start until the first 429 (+1 per success: the limit doubles every round trip), then
additive growth (+1 per `limit / 4` successes: about +4 per round trip, so a limit cut at
the edge of a rate-limit window climbs back within seconds). A 429 multiplies the limit by
0.8 once per congestion episode and pauses new calls for at least its Retry-After. An
episode ends with the first success of a call sent after the shrink: 429s of calls sent
before it reflect the old limit, and 429s while nothing has yet succeeded at the new limit
are the same rate-limit window, so neither shrinks again (otherwise each pause-and-resume
would cut the limit once more and collapse it far below what the provider allows). 5xx and
timeouts pause growth without shrinking.

A local server (`backpressure=True`, for openai-compatible endpoints) queues what it cannot
serve at once, so its congestion shows as timeouts, 503s, connection resets and time spent
queued, not as 429s: each of these shrinks the limit like a 429 (once per episode, no
pause). Time queued is what the server reports (llama.cpp `timings`: the call's latency
less the time it was served), else latency beyond `QUEUE_FACTOR` times the fastest call.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

# Start here and grow while healthy, up to --concurrency.
INITIAL_CONCURRENCY = 10
GROWTH_PAUSE_S = 5.0
# Queued at the server: longer than it was served (and 50 ms), i.e. more than the one call
# ahead of it that keeps a slot busy between two calls; or, without the server's timings,
# latency over QUEUE_FACTOR times the fastest call seen.
QUEUE_SHARE = 1.0
QUEUE_FACTOR = 3.0
QUEUE_MIN_S = 0.05


class AdaptiveLimiter:
    def __init__(
        self,
        max_limit: int,
        initial: int | None = None,
        shrink: float = 0.8,
        *,
        backpressure: bool = False,
    ) -> None:
        self.max_limit = max_limit
        self.backpressure = backpressure
        self.fastest_s: float | None = None
        self.congested = 0  # back-pressure signals seen (queueing, timeouts, 503s, resets)
        self.limit = float(min(max_limit, initial or INITIAL_CONCURRENCY))
        self.shrink = shrink
        self.in_flight = 0
        self.peak_in_flight = 0
        self.pause_until = 0.0
        self.growth_paused_until = 0.0
        self.rate_limited = 0  # 429s seen
        self.shrinks = 0
        self.epoch = 0  # bumped by every shrink
        self.slow_start = True
        self._recovered = True  # a call sent after the last shrink has succeeded
        self._healthy_streak = 0
        self._cond = asyncio.Condition()

    async def acquire(self) -> int:
        """Wait for a slot; return the epoch the call is sent in."""
        loop = asyncio.get_running_loop()
        async with self._cond:
            while True:
                wait = self.pause_until - loop.time()
                if wait > 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._cond.wait(), wait)
                    continue
                if self.in_flight < max(1, int(self.limit)):
                    self.in_flight += 1
                    self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
                    return self.epoch
                await self._cond.wait()

    async def release(self) -> None:
        async with self._cond:
            self.in_flight -= 1
            self._cond.notify_all()

    def on_success(
        self, epoch: int, latency_s: float | None = None, served_s: float | None = None
    ) -> None:
        if epoch == self.epoch:
            self._recovered = True
        if self.backpressure and self._queued(latency_s, served_s):
            self.on_congestion(epoch)
            return
        if time.monotonic() < self.growth_paused_until or self.limit >= self.max_limit:
            return
        if self.slow_start:
            self.limit = min(self.max_limit, self.limit + 1)
            return
        self._healthy_streak += 1
        if self._healthy_streak >= max(1, int(self.limit) // 4):
            self.limit = min(self.max_limit, self.limit + 1)
            self._healthy_streak = 0

    def _queued(self, latency_s: float | None, served_s: float | None) -> bool:
        if latency_s is None:
            return False
        if served_s is not None:
            return latency_s - served_s > max(QUEUE_MIN_S, QUEUE_SHARE * served_s)
        fastest = self.fastest_s = min(self.fastest_s or latency_s, latency_s)
        return latency_s > QUEUE_FACTOR * fastest and latency_s - fastest > QUEUE_MIN_S

    def _shrink(self, epoch: int) -> None:
        self.slow_start = False
        self._healthy_streak = 0
        if epoch == self.epoch and self._recovered:
            self.limit = max(1.0, self.limit * self.shrink)
            self.epoch += 1
            self.shrinks += 1
            self._recovered = False

    def on_congestion(self, epoch: int) -> None:
        """Back-pressure from a server that queues: shrink as for a 429, without a pause."""
        self.congested += 1
        self._shrink(epoch)

    def on_rate_limited(self, retry_after: float | None, epoch: int) -> None:
        self.rate_limited += 1
        self._shrink(epoch)
        loop = asyncio.get_running_loop()
        self.pause_until = max(self.pause_until, loop.time() + (retry_after or 1.0))

    def on_transient_error(self, epoch: int | None = None, kind: str | None = None) -> None:
        """A 5xx, a timeout or a lost connection. From a server that queues, a timeout, a
        503 or a reset is back-pressure (`kind` "backpressure"); otherwise growth pauses."""
        self._healthy_streak = 0
        self.growth_paused_until = time.monotonic() + GROWTH_PAUSE_S
        if self.backpressure and kind == "backpressure" and epoch is not None:
            self.on_congestion(epoch)

    def describe(self) -> dict[str, float | int]:
        """The concurrency as it went, for run.json and the judge summary."""
        return {
            "max": self.max_limit,
            "final": int(self.limit),
            "peak_in_flight": self.peak_in_flight,
            "shrinks": self.shrinks,
            "rate_limited": self.rate_limited,
            "backpressure": self.congested,
        }
