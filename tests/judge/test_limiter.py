"""Adaptive concurrency: x0.8 on a 429 once per episode, pause for Retry-After, grow."""

from __future__ import annotations

import asyncio

import pytest

from locoscore.llm.limiter import AdaptiveLimiter


def _run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


def test_slow_start_adds_one_per_success_up_to_the_cap() -> None:
    async def scenario() -> float:
        limiter = AdaptiveLimiter(max_limit=12, initial=10)
        for _ in range(5):
            limiter.on_success(limiter.epoch)
        return limiter.limit

    assert _run(scenario()) == 12


def test_a_429_shrinks_by_0_8_and_pauses_for_retry_after() -> None:
    async def scenario() -> tuple[float, float]:
        limiter = AdaptiveLimiter(max_limit=50, initial=20)
        loop = asyncio.get_running_loop()
        epoch = await limiter.acquire()
        await limiter.release()
        limiter.on_rate_limited(0.2, epoch)
        started = loop.time()
        await limiter.acquire()
        return limiter.limit, loop.time() - started

    limit, waited = _run(scenario())
    assert limit == pytest.approx(16.0)
    assert waited >= 0.19


def test_many_429s_of_one_episode_shrink_once() -> None:
    async def scenario() -> AdaptiveLimiter:
        limiter = AdaptiveLimiter(max_limit=50, initial=20)
        old_epoch = limiter.epoch
        for _ in range(10):  # calls sent before the shrink
            limiter.on_rate_limited(0.0, old_epoch)
        for _ in range(10):  # calls sent after it, none succeeded yet: same window
            limiter.on_rate_limited(0.0, limiter.epoch)
        return limiter

    limiter = _run(scenario())
    assert (limiter.limit, limiter.shrinks, limiter.rate_limited) == (16.0, 1, 20)


def test_after_a_success_at_the_new_limit_a_429_shrinks_again() -> None:
    async def scenario() -> float:
        limiter = AdaptiveLimiter(max_limit=50, initial=20)
        limiter.on_rate_limited(0.0, limiter.epoch)
        limiter.on_success(limiter.epoch)
        limiter.on_rate_limited(0.0, limiter.epoch)
        return limiter.limit

    assert _run(scenario()) == pytest.approx(20 * 0.8 * 0.8)


def test_after_a_429_growth_is_additive() -> None:
    async def scenario() -> list[float]:
        limiter = AdaptiveLimiter(max_limit=50, initial=10)
        limiter.on_rate_limited(0.0, limiter.epoch)  # 8
        seen = []
        for _ in range(16):
            limiter.on_success(limiter.epoch)
            seen.append(limiter.limit)
        return seen

    seen = _run(scenario())
    # +1 per limit // 4 successes: 2 at limits 8-11, then 3 at limit 12
    assert seen == [8, 9, 9, 10, 10, 11, 11, 12, 12, 12, 13, 13, 13, 14, 14, 14]


def test_server_errors_pause_growth_without_shrinking() -> None:
    async def scenario() -> float:
        limiter = AdaptiveLimiter(max_limit=50, initial=10)
        limiter.on_transient_error()
        for _ in range(5):
            limiter.on_success(limiter.epoch)
        return limiter.limit

    assert _run(scenario()) == 10


def test_the_limit_caps_calls_in_flight() -> None:
    async def scenario() -> int:
        limiter = AdaptiveLimiter(max_limit=3, initial=3)

        async def call() -> None:
            await limiter.acquire()
            await asyncio.sleep(0.01)
            await limiter.release()

        await asyncio.gather(*(call() for _ in range(20)))
        return limiter.peak_in_flight

    assert _run(scenario()) == 3


def test_a_server_that_queues_shrinks_the_limit_on_timeouts_and_queueing() -> None:
    async def scenario() -> tuple[float, float, float]:
        local = AdaptiveLimiter(max_limit=50, initial=20, backpressure=True)
        local.on_transient_error(local.epoch, "backpressure")  # a timeout, 503 or reset
        after_timeout = local.limit
        local.on_success(local.epoch, latency_s=0.3, served_s=0.1)  # queued 0.2 > served
        after_queueing = local.limit
        cloud = AdaptiveLimiter(max_limit=50, initial=20)  # a 5xx only pauses growth
        cloud.on_transient_error(cloud.epoch, "backpressure")
        return after_timeout, after_queueing, cloud.limit

    assert _run(scenario()) == (pytest.approx(16.0), pytest.approx(12.8), 20.0)


def test_one_call_queued_behind_a_busy_slot_is_not_back_pressure() -> None:
    async def scenario() -> float:
        limiter = AdaptiveLimiter(max_limit=3, initial=2, backpressure=True)
        limiter.on_success(limiter.epoch, latency_s=0.19, served_s=0.1)  # queued 0.09 <= 0.1
        return limiter.limit

    assert _run(scenario()) == 3.0
