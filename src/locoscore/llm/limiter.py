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
"""

from __future__ import annotations

import asyncio
import contextlib
import time

# Start here and grow while healthy, up to --concurrency.
INITIAL_CONCURRENCY = 10
GROWTH_PAUSE_S = 5.0


class AdaptiveLimiter:
    def __init__(self, max_limit: int, initial: int | None = None, shrink: float = 0.8) -> None:
        self.max_limit = max_limit
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

    def on_success(self, epoch: int) -> None:
        if epoch == self.epoch:
            self._recovered = True
        if time.monotonic() < self.growth_paused_until or self.limit >= self.max_limit:
            return
        if self.slow_start:
            self.limit = min(self.max_limit, self.limit + 1)
            return
        self._healthy_streak += 1
        if self._healthy_streak >= max(1, int(self.limit) // 4):
            self.limit = min(self.max_limit, self.limit + 1)
            self._healthy_streak = 0

    def on_rate_limited(self, retry_after: float | None, epoch: int) -> None:
        self.rate_limited += 1
        self.slow_start = False
        self._healthy_streak = 0
        if epoch == self.epoch and self._recovered:
            self.limit = max(1.0, self.limit * self.shrink)
            self.epoch += 1
            self.shrinks += 1
            self._recovered = False
        loop = asyncio.get_running_loop()
        self.pause_until = max(self.pause_until, loop.time() + (retry_after or 1.0))

    def on_transient_error(self) -> None:
        self._healthy_streak = 0
        self.growth_paused_until = time.monotonic() + GROWTH_PAUSE_S
