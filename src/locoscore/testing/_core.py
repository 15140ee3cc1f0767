"""The fake provider's shared state: configuration, counters, the seeded fault draw, the
scripted verdicts, the requests-per-minute window and the stored batches and files."""

from __future__ import annotations

import collections
import json
import math
import random
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from locoscore.testing._prompt_cache import FakePromptCache
from locoscore.testing._verdicts import (
    FAULT_TYPES,
    HTTP_FAULTS,
    LIVE_FAULTS,
    Verdict,
    default_score,
    verdict_from,
)

ScriptItem = int | str
# /v1/embeddings vector size when the request names none.
DEFAULT_EMBEDDING_DIMS = 64


@dataclass
class FakeConfig:
    """How the fake provider behaves. Mutable: tests may change it between requests."""

    latency_s: float = 0.0
    rpm_limit: int | None = None
    faults: dict[str, float] = field(default_factory=dict)
    seed: int = 0
    timeout_s: float = 30.0
    # Verdicts consumed in request order (ints 0-100, "CORRECT"/"WRONG", or a fault name
    # that forces that fault); only requests that drew no random fault consume them.
    scores: Sequence[ScriptItem] | None = None
    verdict: Callable[[str], int | str] | None = None
    batch_ready_after_polls: int = 1
    anthropic_no_temperature_models: tuple[str, ...] = ("claude-opus-4-7", "claude-opus-4-8")
    # Additions to the documented interface:
    # Claude generations whose every model rejects temperature (the generation-5 models).
    anthropic_no_temperature_generations: tuple[int, ...] = (5,)
    # OpenAI reasoning models accept only the default temperature.
    openai_no_temperature_models: tuple[str, ...] = ("o1", "o3", "o4-mini", "gpt-5")
    # Length of the requests-per-minute window; shorter windows time-scale a benchmark.
    rpm_window_s: float = 60.0
    # Retry-After of an injected 429 fault (the RPM limit computes its own).
    retry_after_s: float = 1.0
    # Keep request bodies in requests_log (a long benchmark may turn this off).
    log_requests: bool = True
    # Chat Completions response_format types served; a request asking for another gets the
    # 400 a vLLM-style server answers (plain "text" is always served).
    openai_response_formats: tuple[str, ...] = ("json_schema", "json_object")
    # Free-text replies (requests asking for no structured output), e.g. an answerer's: the
    # text for a prompt. None: the judge-style JSON verdict, as before.
    answer: Callable[[str], str] | None = None
    # Vector size of /v1/embeddings when a request sends no `dimensions` (mem0 and other
    # clients may not): match the embedding size the client's vector store expects.
    embedding_dims: int = DEFAULT_EMBEDDING_DIMS
    # The model name replies say they were served by (None: the name asked for), like a
    # local server that serves its own model whatever the request names.
    served_model: str | None = None

    def served(self, asked: str) -> str:
        return self.served_model or asked

    def __post_init__(self) -> None:
        check_faults(self.faults)


def check_faults(faults: Mapping[str, float]) -> None:
    unknown = sorted(set(faults) - FAULT_TYPES)
    if unknown:
        raise ValueError(f"unknown fault type(s) {unknown}; known: {sorted(FAULT_TYPES)}")
    for name, rate in faults.items():
        if not 0.0 <= float(rate) <= 1.0:
            raise ValueError(f"fault rate for {name!r} must be within 0..1, got {rate}")


@dataclass
class Reply:
    """What the HTTP layer sends back, and what it does before or instead."""

    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    drop: bool = False  # close the socket without answering
    hang_s: float = 0.0  # wait this long first; give up if the client disconnects
    generations: int = 0  # model generations this reply serves, counted once it is sent


def json_reply(
    payload: Any, status: int = 200, headers: dict[str, str] | None = None, generations: int = 0
) -> Reply:
    body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    return Reply(status=status, body=body, headers=headers or {}, generations=generations)


def new_id(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:24]}"


def retry_after_headers(seconds: float) -> dict[str, str]:
    """Retry-After in whole seconds (what the APIs send) and retry-after-ms (exact)."""
    return {
        "retry-after": str(max(1, math.ceil(seconds))),
        "retry-after-ms": str(max(1, math.ceil(seconds * 1000))),
    }


@dataclass
class RateState:
    limit: int
    remaining: int
    reset_s: float


class Core:
    """Everything the request handlers share; every method is thread-safe."""

    def __init__(self, config: FakeConfig) -> None:
        self.config = config
        self.stop_event = threading.Event()
        self.lock = threading.Lock()
        self._rng = random.Random(config.seed)
        self._seed_seen = config.seed
        self._script_seen: Sequence[ScriptItem] | None = None
        self._script_pos = 0
        self._window: collections.deque[float] = collections.deque()
        self.requests = 0
        self.generation_calls = 0
        self.status_counts: collections.Counter[int] = collections.Counter()
        self.fault_counts: collections.Counter[str] = collections.Counter()
        self.requests_log: list[dict[str, Any]] = []
        self.embedding_inputs = 0  # texts embedded by /v1/embeddings
        # Requests being served at once, and the most seen (what clients sharing a key sent
        # together: shards on several machines must not exceed one run's limit).
        self.in_flight = 0
        self.peak_in_flight = 0
        # Stored batches and files, by id.
        self.anthropic_batches: dict[str, dict[str, Any]] = {}
        self.openai_batches: dict[str, dict[str, Any]] = {}
        self.files: dict[str, dict[str, Any]] = {}
        # Both providers' prompt caches, with their rules (see _prompt_cache).
        self.prompt_cache = FakePromptCache()

    # -- counters -------------------------------------------------------------------------

    def record_request(self, entry: dict[str, Any]) -> None:
        with self.lock:
            self.requests += 1
            if self.config.log_requests:
                self.requests_log.append(entry)

    def enter(self) -> None:
        with self.lock:
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)

    def leave(self) -> None:
        with self.lock:
            self.in_flight -= 1

    def record_sent(self, status: int, generations: int, undo: bool = False) -> None:
        with self.lock:
            self.status_counts[status] += -1 if undo else 1
            self.generation_calls += generations
            if self.status_counts[status] <= 0:
                del self.status_counts[status]

    def record_fault(self, name: str) -> None:
        with self.lock:
            self.fault_counts[name] += 1

    def reset_counters(self) -> None:
        with self.lock:
            self.requests = 0
            self.generation_calls = 0
            self.status_counts.clear()
            self.fault_counts.clear()
            self.requests_log.clear()
            self.embedding_inputs = 0
            self.peak_in_flight = self.in_flight

    def stats(self) -> dict[str, Any]:
        with self.lock:
            return {
                "requests": self.requests,
                "generation_calls": self.generation_calls,
                "status_counts": {str(k): v for k, v in self.status_counts.items()},
                "fault_counts": dict(self.fault_counts),
                "embedding_inputs": self.embedding_inputs,
                "peak_in_flight": self.peak_in_flight,
            }

    # -- faults and verdicts --------------------------------------------------------------

    def draw_fault(self, applicable: frozenset[str]) -> str | None:
        """At most one fault per request, drawn from the seeded RNG."""
        faults = self.config.faults
        check_faults(faults)
        with self.lock:
            self._reseed_if_changed()
            draw = self._rng.random()
        cumulative = 0.0
        for name in sorted(faults):
            if name not in applicable:
                continue
            cumulative += float(faults[name])
            if draw < cumulative:
                return name
        return None

    def shuffled(self, items: list[Any]) -> list[Any]:
        with self.lock:
            self._reseed_if_changed()
            out = list(items)
            self._rng.shuffle(out)
            return out

    def _reseed_if_changed(self) -> None:
        if self.config.seed != self._seed_seen:
            self._seed_seen = self.config.seed
            self._rng = random.Random(self.config.seed)

    def next_outcome(self, text: str) -> Verdict | str:
        """The next scripted verdict or forced fault name; else the callable or the rule."""
        with self.lock:
            script = self.config.scores
            if script is not self._script_seen:
                self._script_seen, self._script_pos = script, 0
            item: ScriptItem | None = None
            if script is not None and self._script_pos < len(script):
                item = script[self._script_pos]
                self._script_pos += 1
        if isinstance(item, str) and item in FAULT_TYPES:
            return item
        if item is not None:
            return verdict_from(item)
        return self.rule_verdict(text)

    def decide(
        self, text: str, n: int = 1, *, batch: bool = False
    ) -> tuple[list[Verdict], str | None]:
        """The verdicts of one request's n outputs and the fault (at most one) it suffers
        (only a batch entry can expire). A random fault spares the script; a scripted fault
        name hits the whole request."""
        applicable = FAULT_TYPES if batch else LIVE_FAULTS
        fault = self.draw_fault(applicable)
        if fault is not None:
            verdicts = [self.rule_verdict(text)] * n
        else:
            verdicts = []
            for _ in range(n):
                outcome = self.next_outcome(text)
                if isinstance(outcome, Verdict):
                    verdicts.append(outcome)
                    continue
                if outcome in applicable and fault is None:
                    fault = outcome
                verdicts.append(self.rule_verdict(text))
        if fault is not None:
            self.record_fault(fault)
        return verdicts, fault

    def live_fault(
        self, fault: str | None, fault_reply: Callable[[str, dict[str, str]], Reply]
    ) -> Reply | None:
        """What a live call's fault answers instead of a reply: a dropped connection, or the
        wire's error (`fault_reply`, given a 429's Retry-After); None: the call is answered."""
        if fault == "drop":
            return Reply(drop=True)
        if fault in HTTP_FAULTS:
            headers = retry_after_headers(self.config.retry_after_s) if fault == "429" else {}
            return fault_reply(fault, headers)
        return None

    def live_reply(
        self,
        payload: dict[str, Any],
        fault: str | None,
        headers: dict[str, str] | None = None,
        generations: int = 0,
    ) -> Reply:
        """An answered live call's reply; under a `timeout` fault it hangs before it is sent."""
        reply = json_reply(payload, headers=headers, generations=generations)
        if fault == "timeout":
            reply.hang_s = self.config.timeout_s
        return reply

    def rule_verdict(self, text: str) -> Verdict:
        """The verdict without the script: the configured callable, else the hash rule."""
        if self.config.verdict is not None:
            return verdict_from(self.config.verdict(text))
        return verdict_from(default_score(text))

    # -- rate limit -----------------------------------------------------------------------

    def admit(self) -> float | None:
        """Take a slot in the sliding RPM window; if none is free, the seconds until one is."""
        limit = self.config.rpm_limit
        if limit is None:
            return None
        window = self.config.rpm_window_s
        now = time.monotonic()
        with self.lock:
            while self._window and self._window[0] <= now - window:
                self._window.popleft()
            if len(self._window) >= limit:
                frees_at = self._window[len(self._window) - limit] + window
                return max(frees_at - now, 0.001)
            self._window.append(now)
            return None

    def rate_state(self) -> RateState | None:
        limit = self.config.rpm_limit
        if limit is None:
            return None
        now = time.monotonic()
        with self.lock:  # admit() has just pruned the window
            used = len(self._window)
            oldest = self._window[0] if self._window else now
        reset = max(0.0, oldest + self.config.rpm_window_s - now)
        return RateState(limit=limit, remaining=max(0, limit - used), reset_s=reset)

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.stop_event.wait(seconds)
