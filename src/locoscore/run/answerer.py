"""The answer step, held constant across systems: an LLM through the shared provider layer
(`locoscore.llm`: SDK clients, `CallPool` retries, adaptive concurrency), or `extractive`
(no model: the top retrieved item's text, a lexical floor that needs no key).

Answers are cached in the run's store by everything that changes them (the endpoint
included), so a rerun after a crash makes no call twice. Each cached answer keeps the model
the server said it served: once a live reply names another, answers cached from the old one
are asked again.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from locoscore.benchmarks.answer_prompt import AnswerPrompt
from locoscore.errors import InputError
from locoscore.llm.cost import PriceTable, estimate_prompt_tokens
from locoscore.llm.endpoint import Endpoint, Served, resolve_endpoint
from locoscore.llm.endpoint_pool import EndpointPool, discover_members
from locoscore.llm.ledger import Ledger, Spend
from locoscore.llm.limiter import AdaptiveLimiter
from locoscore.llm.local_server import (
    ServerFacts,
    concurrency_plan,
    count_usage_locally,
    discover,
)
from locoscore.llm.pool import CallPool, Outcome, RetryPolicy
from locoscore.llm.pooled_client import PooledClient, PoolLimiter
from locoscore.llm.prompt_cache import PrefixPolicy
from locoscore.llm.providers import (
    PROVIDERS,
    LLMClient,
    ProviderConfig,
    Reply,
    SamplingPlan,
    api_key,
    make_client,
    resolve_sampling,
)
from locoscore.run.placed_context import PlacedContext
from locoscore.run.store import CachedAnswer, RunStore, answer_key

EXTRACTIVE = "extractive"
ANSWER_PROVIDERS: tuple[str, ...] = (*PROVIDERS, EXTRACTIVE)
# The Mem0 paper's answer model, so its rows compare; the seed used claude-opus-4-6.
DEFAULT_ANSWER_MODELS = {"openai": "gpt-4o-mini", "anthropic": "claude-opus-4-6"}
# A short answer: about 12 words asked for, with room to spare.
EXPECTED_ANSWER_TOKENS = 20


@dataclass
class AnswerSettings:
    provider: str = "openai"
    model: str | None = None
    base_url: str | None = None
    # several endpoints serving the model (--answer-base-url repeated, --answer-pool FILE)
    pool: EndpointPool | None = None
    prompt: AnswerPrompt | None = None
    temperature: float = 0.0
    max_tokens: int = 128
    timeout_s: float = 60.0
    max_attempts: int = 6
    retry_base_delay_s: float = 0.5
    concurrency: int = 64
    max_cost_usd: float | None = None
    prices: PriceTable = field(default_factory=PriceTable)
    context_window: int | None = None  # --answer-context-window: wins over the server's
    # Mark the prompt's shared prefix for the provider's cache (--no-prompt-cache: off).
    # Not in the signature: a cached prefix is the same prompt, billed less.
    prompt_cache: bool = True


@dataclass(frozen=True)
class AnswerStep:
    """What the answer step applies, resolved once; its signature names all of it."""

    settings: AnswerSettings
    model: str | None
    prompt: AnswerPrompt
    sampling: SamplingPlan | None
    endpoint: Endpoint | None = None  # None: extractive, no model called
    server: ServerFacts | None = None  # what a compatible server said about itself
    # a pool: what each member said about itself (None: not asked), in the pool's order
    pool_facts: tuple[ServerFacts | None, ...] = ()

    @property
    def context_window(self) -> int | None:
        """The model's window in tokens (prompt and answer), when known."""
        if self.settings.context_window is not None:
            return self.settings.context_window
        return self.server.context_window if self.server is not None else None

    @property
    def window_source(self) -> str:
        if self.settings.context_window is not None:
            return "--answer-context-window"
        source = self.server.window_source if self.server is not None else None
        return f"the server's {source}" if source else "unknown"

    def window_contradiction(self) -> str | None:
        """A warning when --answer-context-window claims more than the server's own window:
        the server refuses what does not fit its window, whatever locoscore was told."""
        given = self.settings.context_window
        server = self.server.context_window if self.server is not None else None
        if given is None or server is None or given <= server:
            return None
        assert self.server is not None
        return (
            f"--answer-context-window {given:,} is larger than the {server:,}-token window the "
            f"server reports ({self.server.window_source}): prompts are checked against "
            f"{given:,}, and the server refuses those over its own (each recorded as "
            "context_overflow after a call)"
        )

    def initial_concurrency(self) -> tuple[int, int, str]:
        """(start, most, why): calls in flight the answer step starts with and may reach;
        32 for the cloud providers (the judge's 10 takes round trips of slow start)."""
        most = self.settings.concurrency
        start, most, why = concurrency_plan(self.provider, self.server, most, min(most, 32))
        return start or 1, most, why

    @property
    def provider(self) -> str:
        return self.settings.provider

    @property
    def is_extractive(self) -> bool:
        return self.provider == EXTRACTIVE

    @property
    def signature(self) -> str:
        return self.signature_with(None)

    def signature_with(self, served: Served | None) -> str:
        """With `served`, what the server said it served (`served:`, `fake`) after the model."""
        if self.is_extractive:
            return "answer:extractive|top-item-text"
        assert self.sampling is not None and self.endpoint is not None
        return (
            f"answer:{self.provider}{self.endpoint.signature}|model:{self.model}"
            f"{served.signature if served else ''}|prompt:{self.prompt.version_hash}"
            f"|{self.sampling.signature}|max_tokens:{self.settings.max_tokens}"
        )

    def cache_params(self) -> dict[str, Any]:
        assert self.sampling is not None and self.endpoint is not None
        return {
            "provider": self.provider,
            "model": self.model,
            # another server may serve another model under the same name
            "endpoint": self.endpoint.url,
            "max_tokens": self.settings.max_tokens,
            **self.sampling.cache_params(),
        }

    def to_json(self, served: Served | None = None) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model": self.model,
            "endpoint": None if self.endpoint is None else self.endpoint.to_json(),
            "served": (served or Served()).to_json(),
            "prompt_name": self.prompt.name,
            "prompt_hash": self.prompt.version_hash,
            "sampling": None if self.sampling is None else self.sampling.signature,
            "max_tokens": self.settings.max_tokens,
            # the calls' own limits (--timeout, --max-attempts): not in the signature
            "timeout_s": self.settings.timeout_s,
            "max_attempts": self.settings.max_attempts,
            "signature": self.signature_with(served),
            "context_window": self.context_window,
            "context_window_source": self.window_source,
            "server": None if self.server is None else self.server.to_json(),
            **({} if self.settings.pool is None else {"pool": self.settings.pool.to_json()}),
            "prompt_cache": self.settings.prompt_cache and not self.is_extractive,
        }


def resolve_answer_step(
    settings: AnswerSettings, prompt: AnswerPrompt, *, needs_key: bool = True
) -> AnswerStep:
    """The answer step as applied; a missing key is refused unless `needs_key` is False
    (a dry run, which sends nothing)."""
    if settings.provider not in ANSWER_PROVIDERS:
        raise InputError(
            f"--answer-provider {settings.provider}: expected one of {', '.join(ANSWER_PROVIDERS)}"
        )
    if settings.provider == EXTRACTIVE:
        return AnswerStep(settings, None, prompt, None)
    model = settings.model or DEFAULT_ANSWER_MODELS.get(settings.provider)
    if not model:
        raise InputError(f"--answer-model is required for --answer-provider {settings.provider}")
    if settings.max_cost_usd is not None and settings.prices.prices.get(model) is None:
        raise InputError(
            f"needs a price for model {model}: add it with --prices FILE", field="--max-cost"
        )
    if settings.timeout_s <= 0:
        raise InputError(f"--timeout must be more than 0 seconds, not {settings.timeout_s:g}")
    if settings.context_window is not None and settings.context_window < 1:
        raise InputError("--answer-context-window must be at least 1 token")
    sampling = resolve_sampling(settings.provider, model, settings.temperature)
    if settings.pool is not None:
        return _pooled_step(settings, model, prompt, sampling, settings.pool, needs_key)
    endpoint = resolve_endpoint(settings.provider, settings.base_url, field="--answer-base-url")
    # A missing key stops the run before anything is spent (a dry run sends nothing).
    key = api_key(settings.provider) if needs_key else os.environ.get("OPENAI_API_KEY")
    server = None
    if settings.provider == "openai-compatible" and settings.base_url:
        server = discover(settings.base_url, model, key)
    return AnswerStep(settings, model, prompt, sampling, endpoint, server=server)


def _pooled_step(
    settings: AnswerSettings,
    model: str,
    prompt: AnswerPrompt,
    sampling: SamplingPlan,
    pool: EndpointPool,
    needs_key: bool,
) -> AnswerStep:
    """The answer step over a pool: every member asked what it is (a compatible server),
    a pool whose members serve different models refused, the smallest window kept."""
    own_keys = all(m.key_env for m in pool.members)  # no provider-wide key needed
    key = api_key(settings.provider) if needs_key and not own_keys else None
    facts = discover_members(pool, settings.provider, model, key, needs_key=needs_key)
    windows = [f for f in facts if f is not None and f.context_window]
    server = min(windows, key=lambda f: f.context_window or 0) if windows else None
    return AnswerStep(
        settings, model, prompt, sampling, pool.endpoint(), server=server, pool_facts=tuple(facts)
    )


@dataclass(frozen=True)
class Answer:
    text: str
    latency_s: float | None
    input_tokens: int = 0
    output_tokens: int = 0
    cached: bool = False
    error: str | None = None
    stopped: bool = False  # not asked: the pass stopped (cost cap, fatal error)
    served_model: str = ""  # what the server said it served ("" when it said nothing)
    fake: bool = False
    served_s: float | None = None  # of latency_s, served (the rest queued at the server)
    usage_counted_locally: bool = False  # the server reported no usage: tiktoken counts
    # of input_tokens, those read from / written to the provider's prompt cache
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


_WHITESPACE = re.compile(r"\s+")


def clean_answer(text: str) -> str:
    """One line: models sometimes wrap a short answer over lines or add a label."""
    text = _WHITESPACE.sub(" ", text).strip()
    return text[len("Answer:") :].strip() if text.lower().startswith("answer:") else text


class Answerer:
    def __init__(
        self,
        step: AnswerStep,
        store: RunStore,
        *,
        on_status: Callable[[str], None] | None = None,
        ledger: Ledger | None = None,
        shared_context: bool = False,
    ) -> None:
        self.step = step
        self.store = store
        self.ledger = ledger  # this attempt's calls, beside the earlier attempts'
        self.client: LLMClient | None = None
        settings = step.settings
        # Answer calls start at up to 32 in flight, or a compatible server's slots; 429s (and
        # for a compatible server, queueing, timeouts, 503s) shrink it as for the judge.
        self.pooled: PooledClient | None = None
        if settings.pool is not None:
            self.pooled = PooledClient.of(
                self._config(), settings.pool, list(step.pool_facts), settings.concurrency
            )
            start = most = min(settings.concurrency, self.pooled.capacity)
            self.concurrency_source = f"a pool of {len(settings.pool.members)} endpoints"
            self.limiter: AdaptiveLimiter = PoolLimiter(most)
        else:
            start, most, self.concurrency_source = step.initial_concurrency()
            self.limiter = AdaptiveLimiter(
                most, start, backpressure=settings.provider == "openai-compatible"
            )
        self.initial_concurrency = start
        self.pool = CallPool(
            self.limiter,
            RetryPolicy(
                max_attempts=settings.max_attempts,
                base_delay_s=settings.retry_base_delay_s,
                timeout_s=settings.timeout_s,
            ),
            max_cost_usd=settings.max_cost_usd,
            on_status=on_status,
        )
        self.calls_cached = 0
        # (served model, fake) of every live reply, and of every answer used from the cache
        self.live_served: set[tuple[str, bool]] = set()
        self.used: dict[str, tuple[str, bool]] = {}  # answer key -> who made it
        self._uses: Counter[tuple[str, bool]] = Counter()  # of `used`'s values
        self.answers = 0  # replies with an answer, this attempt
        self.input_tokens = 0
        self.output_tokens = 0
        self.cache_read_tokens = 0
        self.cache_write_tokens = 0
        # `shared_context`: every question of a conversation gets the same context
        # (full-context), so its prefix is marked from the first question on.
        self.prefix_policy = PrefixPolicy(
            settings.prompt_cache and not step.is_extractive,
            settings.provider,
            step.model or "",
            shared_context,
        )

    @property
    def caches_prompts(self) -> bool:
        """Prompt caching is on: a conversation's first question goes first, alone."""
        return self.prefix_policy.enabled

    def spent(self) -> Spend:
        """This attempt's answer calls (cost None when no price applies)."""
        cost = None if self.cost_unknown_reason() else self.pool.spent_usd
        return Spend(
            self.pool.made,
            self.answers,
            self.input_tokens,
            self.output_tokens,
            cost,
            cache_read_tokens=self.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens,
        )

    def key(self, prompt: str) -> str:
        return answer_key(self.step.cache_params(), prompt)

    def estimate_usd(self, prompt: str) -> float:
        assert self.step.model is not None
        cost = self.step.settings.prices.cost(
            self.step.model, estimate_prompt_tokens(prompt), EXPECTED_ANSWER_TOKENS
        )
        return cost or 0.0

    def _config(self) -> ProviderConfig:
        assert self.step.model is not None and self.step.sampling is not None
        s = self.step.settings
        return ProviderConfig(
            provider=s.provider,
            model=self.step.model,
            sampling=self.step.sampling,
            max_tokens=s.max_tokens,
            base_url=s.base_url,
            timeout_s=s.timeout_s,
            concurrency=s.concurrency,
        )

    def _client(self) -> LLMClient | PooledClient:
        if self.pooled is not None:
            return self.pooled
        if self.client is None:
            self.client = make_client(self._config())
        return self.client

    def _cost(self, replies: list[Reply]) -> float | None:
        prices, model = self.step.settings.prices, self.step.model or ""
        costs = [
            prices.cost(
                model,
                r.input_tokens,
                r.output_tokens,
                cache_read=r.cache_read_tokens,
                cache_write=r.cache_write_tokens,
                served=r.model,
            )
            for r in replies
        ]
        return sum(c for c in costs if c is not None)

    def _use(self, key: str, served: tuple[str, bool]) -> None:
        earlier = self.used.get(key)
        if earlier is not None:
            self._uses[earlier] -= 1
        self.used[key] = served
        self._uses[served] += 1

    @property
    def served(self) -> Served:
        """Who made the answers this pass used, live or cached."""
        return Served.of(pair for pair, n in self._uses.items() if n > 0)

    def cost_unknown_reason(self) -> str | None:
        """Why the answer cost is n/a: an unpriced model is n/a before (and whatever) the
        first answer, never $0; a served model other than the one asked, once known."""
        if self.step.is_extractive or self.step.model is None:
            return None
        prices = self.step.settings.prices
        if not self.used and self.step.model in prices.prices:
            return None
        return prices.unknown_reason(self.step.model, self.served)

    async def answer(
        self, prompt: str, context: PlacedContext, shared_prefix: str | None = None
    ) -> Answer:
        """`shared_prefix`: the leading part of `prompt` a conversation's questions share
        (marked for the provider's cache when the policy says so)."""
        if self.step.is_extractive:
            top = context.items[0].text if context.items else ""
            return Answer(top, 0.0)
        key = self.key(prompt)
        cached = self.store.get_answer(key)
        if cached is not None and not self.stale(cached.served_model, cached.fake):
            self.calls_cached += 1
            self._use(key, (cached.served_model, cached.fake))
            return Answer(
                cached.answer,
                cached.latency_s,
                cached.input_tokens,
                cached.output_tokens,
                cached=True,
                served_model=cached.served_model,
                fake=cached.fake,
            )
        client = self._client()
        mark = shared_prefix if self.prefix_policy.mark(shared_prefix) else None
        outcome = await self.pool.call(
            lambda: client.complete(prompt, cache_prefix=mark),
            self.estimate_usd(prompt),
            self._cost,
            lambda replies: replies[0].served_s if replies else None,
        )
        if outcome.value and not outcome.value[0].usage_reported:
            outcome = replace(outcome, value=count_usage_locally(prompt, outcome.value))
        try:
            return self._answer_from(key, outcome)
        finally:
            for reply in outcome.value or []:
                self.input_tokens += reply.input_tokens
                self.output_tokens += reply.output_tokens
                self.cache_read_tokens += reply.cache_read_tokens
                self.cache_write_tokens += reply.cache_write_tokens
            if self.ledger is not None:
                self.ledger.record(self.spent())

    def _answer_from(self, key: str, outcome: Outcome[list[Reply]]) -> Answer:
        """A finished call's answer (cached at once), or its error."""
        if outcome.stopped is not None:
            return Answer("", None, error=f"not run: {outcome.stopped}", stopped=True)
        if outcome.error is not None:
            return Answer("", None, error=f"{outcome.error.kind}: {outcome.error.message}")
        replies = outcome.value or []
        reply = replies[0] if replies else None
        if reply is None or reply.refusal or not reply.text.strip():
            why = "refused" if reply is not None and reply.refusal else "empty reply"
            return Answer("", outcome.latency_s, error=f"{why} from the answer model")
        text = clean_answer(reply.text)
        latency = round(outcome.latency_s, 4)
        served_model = reply.model or ""
        self.live_served.add((served_model, reply.fake))
        self._use(key, (served_model, reply.fake))
        self.store.put_answer(
            key,
            CachedAnswer(
                text, reply.input_tokens, reply.output_tokens, latency, served_model, reply.fake
            ),
        )
        self.answers += 1
        return Answer(
            text,
            latency,
            reply.input_tokens,
            reply.output_tokens,
            served_model=served_model,
            fake=reply.fake,
            served_s=None if outcome.served_s is None else round(outcome.served_s, 4),
            usage_counted_locally=not reply.usage_reported,  # `count_usage_locally`
            cache_read_tokens=reply.cache_read_tokens,
            cache_write_tokens=reply.cache_write_tokens,
        )

    def concurrency(self) -> dict[str, Any]:
        """The concurrency the answer calls ran at, for run.json."""
        described: dict[str, Any] = {
            "initial": self.initial_concurrency,
            "source": self.concurrency_source,
            **self.limiter.describe(),
        }
        if self.pooled is not None:  # each endpoint's calls, failures and concurrency
            described["endpoints"] = self.pooled.describe()
        return described

    def stale(self, served_model: str, fake: bool) -> bool:
        """An answer from another server than this pass's live replies say it is."""
        return bool(self.live_served) and (served_model, fake) not in self.live_served

    async def aclose(self) -> None:
        if self.client is not None:
            await self.client.aclose()
        if self.pooled is not None:
            await self.pooled.aclose()
