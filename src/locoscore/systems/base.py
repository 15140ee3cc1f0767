"""The memory-system interface every adapter implements, and what a search returns.

A run drives a system through one conversation at a time:

    await system.start()                       # once: check reachability, load models
    if not await system.already_ingested(conversation):  # resume: stored by an earlier run
        await system.reset(conversation_id)    # forget everything of this conversation
        for session in conversation.sessions:  # in order, each exactly once
            usage = await system.add(session)
        usage = await system.finish(conversation_id)  # optional: build a batch index
    result = await system.search(query)        # scoped to query.conversation_id
    await system.aclose()

Conversations are isolated: a search only ever returns items of its own conversation.
Different conversations may be ingested and searched concurrently; the sessions of one
conversation are added one after another, and its searches start after `finish`.
Systems never see benchmark files: only `locoscore.data.conversation` types.
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from locoscore.data.conversation import Conversation, Query, SessionInput


@dataclass(frozen=True)
class Usage:
    """What a system spent on its own model calls (ingestion or search).

    `input_tokens`/`output_tokens` are LLM tokens; `embedding_tokens` are the tokens sent to
    an embedding model (billed at its own price; `cost_usd` covers both). `calls` counts
    every billed model call (LLM and embedding).
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    calls: int = 0
    embedding_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        cost = None
        if self.cost_usd is not None or other.cost_usd is not None:
            cost = (self.cost_usd or 0.0) + (other.cost_usd or 0.0)
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            cost,
            self.calls + other.calls,
            self.embedding_tokens + other.embedding_tokens,
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Usage:
        """The inverse of `to_json` (missing counts are 0)."""
        cost = data.get("cost_usd")
        return cls(
            input_tokens=int(data.get("input_tokens", 0)),
            output_tokens=int(data.get("output_tokens", 0)),
            cost_usd=None if cost is None else float(cost),
            calls=int(data.get("calls", 0)),
            embedding_tokens=int(data.get("embedding_tokens", 0)),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "embedding_tokens": self.embedding_tokens,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
            "calls": self.calls,
        }


@dataclass(frozen=True)
class MemoryItem:
    """One retrieved item. `dia_ids` is None when the system cannot say where it came from."""

    text: str
    score: float | None = None
    date_iso: str | None = None
    date_raw: str | None = None
    dia_ids: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "dia_ids": None if self.dia_ids is None else list(self.dia_ids)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MemoryItem:
        dia_ids = data.get("dia_ids")
        return cls(
            text=str(data["text"]),
            score=None if data.get("score") is None else float(data["score"]),
            date_iso=data.get("date_iso"),
            date_raw=data.get("date_raw"),
            dia_ids=None if dia_ids is None else tuple(str(d) for d in dia_ids),
        )


@dataclass(frozen=True)
class SearchResult:
    items: tuple[MemoryItem, ...]
    usage: Usage = field(default_factory=Usage)
    # Systems that answer themselves (HTTP `answer` endpoint) return the answer here.
    answer: str | None = None


class MemorySystem(ABC):
    """A memory system under evaluation. Subclasses set `name` and implement the four calls.

    `options` are the `--system-option KEY=VALUE` pairs after validation; they (and nothing
    else that changes results) go into the run signature via `signature_options()`.
    """

    name: ClassVar[str]
    # True for systems that place the whole conversation in the prompt (no retrieval):
    # top-k and the context budget do not apply, and the run says so.
    ignores_budget: ClassVar[bool] = False
    # True for systems whose `search` also answers (their answer replaces the answer step).
    answers_itself: ClassVar[bool] = False
    # A reference system's role (None: a memory system under test): "floor" (`no-memory`)
    # or "retrieval ceiling" (`gold-evidence`). A run records it in run.json, applies no
    # top-k or context budget to it, and skips the integration probe, which tests an
    # integration's storage and retrieval: a reference system stores nothing, or returns
    # only what the run hands it.
    reference: ClassVar[str | None] = None
    # True for the reference system that is handed the benchmark's gold evidence before
    # ingestion (`set_gold_evidence`); the run refuses a benchmark that names none.
    takes_gold_evidence: ClassVar[bool] = False
    # Set by a run: where `notice` sends what its reader must know (run.json's warnings).
    on_notice: Callable[[str], None] | None = None

    async def start(self) -> None:  # noqa: B027 - optional hook
        """Once per run, before ingestion: check servers are reachable (InputError if not)."""

    @abstractmethod
    async def reset(self, conversation_id: str) -> None:
        """Forget everything stored for this conversation."""

    @abstractmethod
    async def add(self, session: SessionInput) -> Usage:
        """Store one session (called in order, once per session)."""

    @abstractmethod
    async def search(self, query: Query) -> SearchResult:
        """The top `query.top_k` items of `query.conversation_id`, best first."""

    async def finish(self, conversation_id: str) -> Usage:
        """Called once after a conversation's last session: a system that indexes in batch
        builds its index here, so that work counts as ingestion, not as the first search.
        (A system must still answer searches correctly if this is never called.)"""
        return Usage()

    async def already_ingested(self, conversation: Conversation) -> bool:
        """True when a persistent store already holds this whole conversation from an
        earlier run (the run then skips ingesting it again). In-memory systems: False."""
        return False

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release clients, files and servers."""

    def set_gold_evidence(self, gold: Mapping[str, Mapping[str, tuple[str, ...]]]) -> None:
        """For `takes_gold_evidence` systems, before `start`: conversation id -> the id a
        system is shown for each question (`Query.question_id`) -> the dia ids of the turns
        that hold its answer."""
        raise NotImplementedError(f"{self.name} takes no gold evidence")

    def signature_options(self) -> dict[str, str]:
        """The options that change results, for the run signature (sorted by key there).

        By default every option of the system's `OPTIONS` given a value, unless its spec
        says it cannot change results: an option left out of the signature would let a rerun
        with another value reuse the other value's answers."""
        from locoscore.systems.options import signature_values

        specs = getattr(type(self), "OPTIONS", None)
        values = getattr(self, "options", None)
        if isinstance(specs, Mapping) and isinstance(values, Mapping):
            return signature_values(specs, values)
        return {}

    def dry_run_blocker(self) -> str | None:
        """Why a dry run cannot ingest into this system as configured: its ingestion calls
        a model and the key it needs is not set (None: it can). A dry run then estimates
        what it can and names this instead of failing."""
        return None

    def ingestion_calls(self, conversation: Conversation) -> int | None:
        """The fewest model calls ingesting this conversation takes, counted from its turns
        without calling anything, for a dry run that cannot ingest (None: unknown)."""
        return None

    def notice(self, message: str) -> None:
        """Say something about this run's results that its reader must know (a model that
        truncates long texts), once: in a run it goes to run.json's warnings and stderr;
        outside a run it is a UserWarning."""
        if self.on_notice is not None:
            self.on_notice(message)
        else:
            warnings.warn(message, UserWarning, stacklevel=2)

    def runtime(self) -> dict[str, Any] | None:
        """Where the system's own models ran (device, precision), for run.json: what does
        not change results but explains its latencies (None: nothing to say)."""
        return None

    def items_in(self, conversation_id: str) -> int | None:
        """How many retrievable items this conversation holds (None when unknown): a top-k
        at or above it bypasses retrieval, which the run warns about."""
        return None


def unbudgeted(system: MemorySystem) -> bool:
    """Top-k and the context budget do not apply: the whole conversation is placed
    (`ignores_budget`), or a reference system's context is fixed by what it is."""
    return system.ignores_budget or system.reference is not None
