"""Calls spread over a pool's endpoints (`endpoint_pool`), behind one client's `complete`.

Each endpoint has its own concurrency (`AdaptiveLimiter`): its slots when it is a local
server that names them (exactly its slots: a call waits here for whichever endpoint frees
first, rather than in one server's queue), else a small start that adapts to its 429s and
back-pressure, as one endpoint's calls do; `concurrency` in the pool file caps it. A call
goes to the endpoint with the most free capacity (times its weight). An endpoint whose call
fails (connection, timeout, 5xx) leaves the pool for a pause (5 s, doubling while it keeps
failing, at most 60 s), then takes calls again; the call itself fails to the `CallPool`,
which sends it again (to another endpoint) as it retries any call, so no question is lost
while one endpoint is up. A 429 pauses that endpoint alone (its own rate limit).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from locoscore.llm.call_errors import classify_error
from locoscore.llm.endpoint_pool import EndpointPool, PoolMember
from locoscore.llm.limiter import AdaptiveLimiter
from locoscore.llm.local_server import SMALL_START, ServerFacts
from locoscore.llm.providers import LLMClient, ProviderConfig, Reply, make_client

PAUSE_S = 5.0  # an endpoint out of the pool after a failure, doubled per failure in a row
MAX_PAUSE_S = 60.0
# failures that say the endpoint, not the call, is the problem
_ENDPOINT_FAILURES = ("connection", "timeout", "server", "overloaded")


class PoolLimiter(AdaptiveLimiter):
    """The pass's own limiter over a pool: the members' capacities summed, never shrunk or
    paused (each member adapts on its own; one member's 429 pauses only that member)."""

    def __init__(self, most: int) -> None:
        super().__init__(most, most)

    def on_success(self, epoch: int, latency_s: float | None = None, served_s: Any = None) -> None:
        pass

    def on_rate_limited(self, retry_after: float | None, epoch: int) -> None:
        self.rate_limited += 1

    def on_transient_error(self, epoch: int | None = None, kind: str | None = None) -> None:
        pass


@dataclass
class Member:
    spec: PoolMember
    limiter: AdaptiveLimiter
    source: str  # where its concurrency came from
    facts: ServerFacts | None = None
    client: LLMClient | None = None
    sent: int = 0  # attempts sent to it
    answered: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    taken_out: int = 0  # times it left the pool
    out_until: float = 0.0
    streak: int = 0  # failures in a row

    def free(self, now: float) -> float:
        """Free capacity times weight (0: full or out of the pool)."""
        if now < self.out_until or now < self.limiter.pause_until:
            return 0.0
        return max(0, max(1, int(self.limiter.limit)) - self.limiter.in_flight) * self.spec.weight

    def describe(self) -> dict[str, Any]:
        return {
            "url": self.spec.url,
            "slots": None if self.facts is None else self.facts.slots,
            "source": self.source,
            "calls": self.sent,
            "answered": self.answered,
            "failures": dict(self.failures),
            "taken_out": self.taken_out,
            **self.limiter.describe(),
        }


def plan_member(
    member: PoolMember, facts: ServerFacts | None, provider: str, most: int
) -> tuple[AdaptiveLimiter, str]:
    """An endpoint's limiter: `concurrency` from the file, else its slots, else adaptive
    (a compatible server from a small start, a provider's API from 32), up to `most`."""
    share = f", 1/{member.divide} of it" if member.divide > 1 else ""
    backpressure = provider == "openai-compatible"
    if member.concurrency is not None or (facts is not None and facts.slots):
        cap = member.concurrency or (facts.slots if facts is not None else None) or 1
        why = "the pool file" if member.concurrency else f"server slots: {cap}"
        cap = max(1, cap // member.divide)
        # never more than it serves at once: nothing queues there to shrink for
        return AdaptiveLimiter(cap, cap), why + share
    start = SMALL_START if backpressure else 32
    limit = max(1, most // member.divide)
    limiter = AdaptiveLimiter(limit, min(limit, start), backpressure=backpressure)
    return limiter, f"adaptive from {min(limit, start)}" + share


class PooledClient:
    """One client over the pool's members (each with its own SDK client, made on first use)."""

    def __init__(self, config: ProviderConfig, members: list[Member]) -> None:
        self.config = config
        self.members = members
        self._cond: asyncio.Condition | None = None

    @classmethod
    def of(
        cls,
        config: ProviderConfig,
        pool: EndpointPool,
        facts: list[ServerFacts | None],
        most: int,
    ) -> PooledClient:
        members = []
        for spec, known in zip(pool.members, facts, strict=True):
            limiter, source = plan_member(spec, known, config.provider, most)
            members.append(Member(spec, limiter, source, known))
        return cls(config, members)

    @property
    def capacity(self) -> int:
        """The most calls the members may have in flight together."""
        return sum(m.limiter.max_limit for m in self.members)

    @property
    def response_format(self) -> str | None:
        made = [m.client for m in self.members if m.client is not None]
        return made[0].response_format if made else self.config.response_format

    @property
    def supports_n(self) -> bool:
        return all(getattr(m.client, "supports_n", True) for m in self.members)

    @property
    def max_n(self) -> int | None:
        limits = [getattr(m.client, "max_n", None) for m in self.members]
        known = [n for n in limits if n is not None]
        return min(known) if known else None

    @property
    def wire(self) -> Any:
        """The first member's wire log (the fake provider's mark is the same on all)."""
        made = [m.client for m in self.members if m.client is not None]
        return made[0].wire if made else None

    def _client(self, member: Member) -> LLMClient:
        if member.client is None:
            config = replace(
                self.config,
                base_url=member.spec.base_url,
                api_key=member.spec.api_key(),
                concurrency=member.limiter.max_limit,
            )
            member.client = make_client(config)
        return member.client

    def _condition(self) -> asyncio.Condition:
        if self._cond is None:
            self._cond = asyncio.Condition()
        return self._cond

    async def _take(self) -> tuple[Member, int]:
        """The member with the most free capacity; waits while none has any (or all are
        out of the pool: until the first comes back)."""
        cond = self._condition()
        async with cond:
            while True:
                now = time.monotonic()
                best = max(self.members, key=lambda m: m.free(now))
                if best.free(now) > 0:
                    best.limiter.in_flight += 1
                    best.limiter.peak_in_flight = max(
                        best.limiter.peak_in_flight, best.limiter.in_flight
                    )
                    best.sent += 1
                    return best, best.limiter.epoch
                ends = [max(m.out_until, m.limiter.pause_until) for m in self.members]
                back = [t for t in ends if t > now]
                wait = max(0.01, min(back) - now) if back else None
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(cond.wait(), wait)

    async def _give(self, member: Member) -> None:
        cond = self._condition()
        async with cond:
            member.limiter.in_flight -= 1
            cond.notify_all()

    async def complete(
        self, prompt: str, n: int = 1, cache_prefix: str | None = None
    ) -> list[Reply]:
        member, epoch = await self._take()
        started = time.monotonic()
        try:
            replies = await self._client(member).complete(prompt, n, cache_prefix)
        except Exception as exc:
            self._failed(member, exc, epoch)
            raise
        finally:
            await self._give(member)
        served = replies[0].served_s if replies else None
        member.limiter.on_success(epoch, time.monotonic() - started, served)
        member.answered += 1
        member.streak = 0
        return replies

    def _failed(self, member: Member, exc: BaseException, epoch: int) -> None:
        error = classify_error(exc)
        if error.kind in ("response_format_downgraded", "n_refused"):
            return  # a negotiation with this server, not a failure
        member.failures[error.kind] += 1
        if error.kind == "rate_limit":
            member.limiter.on_rate_limited(error.retry_after, epoch)
        elif error.kind in _ENDPOINT_FAILURES:
            member.streak += 1
            member.taken_out += 1
            pause = min(MAX_PAUSE_S, PAUSE_S * 2 ** (member.streak - 1))
            member.out_until = time.monotonic() + pause

    def describe(self) -> list[dict[str, Any]]:
        """Each endpoint's calls, failures and concurrency, for run.json and the judge."""
        return [m.describe() for m in self.members]

    async def aclose(self) -> None:
        for member in self.members:
            if member.client is not None:
                await member.client.aclose()
