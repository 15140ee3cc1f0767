"""`--system python:module:Class`: a user's own memory system from the current environment.

What the class must be (checked before anything runs; bad input is one line, exit 2):

- a `MemorySystem` subclass, or any class with `async def reset(conversation_id)`,
  `async def add(session)` and `async def search(query)` (duck typing: locoscore need not be
  imported by the user's module); optional `start`/`aclose` (sync or async),
  `signature_options()`, `items_in(conversation_id)`, `finish(conversation_id)` (after a
  conversation's last session; may return usage like `add`), `already_ingested(conversation)`
  (a persistent store saying a conversation is already in), and class flags
  `ignores_budget`, `answers_itself`;
- constructible as `Class(options, context)`, `Class(options)` or `Class()` (the last only
  without `--system-option`s); whatever the constructor raises is bad input.

The module is imported like `python -m` would: the current working directory comes first on
`sys.path`, so `my_memory.py` beside the user is found without installing it.

A `start()` that raises is bad input too (the run stops before writing anything). After
that, every call goes through `PythonSystem`, which turns anything the user's code raises
into a `SystemCallError` naming the call and its question (search) or conversation (reset,
add), so a run records it per question instead of crashing, and normalises what comes back:
`add` may return None, a `Usage`, or a dict with `input_tokens`/`output_tokens`/
`embedding_tokens`/`cost_usd`/`calls` (the usage hook: what the system spent on its own
model calls); `search` may return
a `SearchResult`, a list of items, or a dict `{"items": [...], "answer": ..., "usage": ...}`,
where an item is a `MemoryItem`, a string, or a dict with `text` and optional `score`,
`date_iso` (alias `created_at`), `date_raw`, `dia_ids`. Top-k is not enforced here: the
probe checks the system honours it.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from locoscore.data.conversation import Conversation, Query, SessionInput
from locoscore.errors import InputError, SystemCallError
from locoscore.llm.call_errors import one_line_error
from locoscore.python_spec import import_spec, parse_spec
from locoscore.systems.base import MemoryItem, MemorySystem, SearchResult, Usage
from locoscore.systems.context import SystemContext

REQUIRED_METHODS = ("reset", "add", "search")
_EXAMPLE = "python:module:Class (e.g. python:my_memory:MyMemory)"
_USAGE_KEYS = frozenset({"input_tokens", "output_tokens", "embedding_tokens", "cost_usd", "calls"})
_ITEM_KEYS = frozenset({"text", "score", "date_iso", "created_at", "date_raw", "dia_ids"})


class _BadShape(Exception):
    """What a user's call returned does not fit (becomes a SystemCallError)."""


def parse_target(name: str) -> tuple[str, str]:
    return parse_spec(name, "--system", _EXAMPLE)


def import_user_class(name: str) -> type:
    """The class named by `python:module:Class`, with the current directory importable."""
    module_name, class_name = parse_target(name)
    cls = import_spec(name, "--system", _EXAMPLE)
    if not isinstance(cls, type):
        raise InputError(f"--system {name}: {module_name}.{class_name} is not a class")
    return cls


def check_user_class(name: str, cls: type) -> None:
    """The class has the async methods a memory system needs, all implemented."""
    for method in REQUIRED_METHODS:
        function = getattr(cls, method, None)
        if function is None:
            raise InputError(
                f"--system {name}: {cls.__name__} has no method {method!r} "
                f"(a memory system needs async {', '.join(REQUIRED_METHODS)})"
            )
        if not inspect.iscoroutinefunction(function):
            raise InputError(f"--system {name}: {cls.__name__}.{method} must be `async def`")
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(getattr(cls, "__abstractmethods__", ())))
        raise InputError(f"--system {name}: {cls.__name__} does not implement {missing}")


def construct_user_system(
    name: str, cls: type, options: dict[str, str], context: SystemContext
) -> Any:
    """`cls(options, context)`, `cls(options)` or `cls()`, the first the signature accepts."""
    try:
        signature: inspect.Signature | None = inspect.signature(cls)
    except (TypeError, ValueError):
        signature = None
    candidates: list[tuple[Any, ...]] = [(options, context), (options,), ()]
    arguments = candidates[0]
    if signature is not None:
        accepted = [args for args in candidates if _binds(signature, args)]
        if not accepted:
            raise InputError(
                f"--system {name}: {cls.__name__}() accepts none of (options, context), "
                "(options) or ()"
            )
        arguments = accepted[0]
    if not arguments and options:
        raise InputError(
            f"--system-option {next(iter(options))}: {cls.__name__}() takes no options"
        )
    try:
        return cls(*arguments)
    except InputError:
        raise
    except Exception as exc:
        raise InputError(
            f"--system {name}: {cls.__name__}(...) raised {one_line_error(exc)}"
        ) from None


def _binds(signature: inspect.Signature, args: tuple[Any, ...]) -> bool:
    try:
        signature.bind(*args)
    except TypeError:
        return False
    return True


def to_usage(value: Any) -> Usage:
    """The usage hook: None, a Usage, or a dict of LLM input/output tokens, embedding
    tokens, cost and calls (all optional)."""
    if value is None:
        return Usage()
    if isinstance(value, Usage):
        return value
    if not isinstance(value, Mapping):
        raise _BadShape(
            f"returned {type(value).__name__}; expected None, a Usage or a dict with "
            "input_tokens/output_tokens/cost_usd"
        )
    unknown = sorted(set(value) - _USAGE_KEYS)
    if unknown:
        raise _BadShape(
            f"usage has unknown key {unknown[0]!r} (known: {', '.join(sorted(_USAGE_KEYS))})"
        )
    counts = {}
    for key in ("input_tokens", "output_tokens", "embedding_tokens", "calls"):
        count = value.get(key, 0)
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise _BadShape(f"usage {key} {count!r} is not a non-negative integer")
        counts[key] = count
    cost = value.get("cost_usd")
    if cost is not None and (
        isinstance(cost, bool)
        or not isinstance(cost, int | float)
        or not math.isfinite(cost)
        or cost < 0
    ):
        raise _BadShape(f"usage cost_usd {cost!r} is not a non-negative number or null")
    return Usage(
        counts["input_tokens"],
        counts["output_tokens"],
        None if cost is None else float(cost),
        counts["calls"],
        counts["embedding_tokens"],
    )


def to_item(value: Any, rank: int) -> MemoryItem:
    if isinstance(value, MemoryItem):
        return value
    if isinstance(value, str):
        return MemoryItem(text=value)
    if not isinstance(value, Mapping):
        raise _BadShape(
            f"item {rank} is {type(value).__name__}; expected a MemoryItem, str or dict"
        )
    unknown = sorted(set(value) - _ITEM_KEYS)
    if unknown:
        raise _BadShape(f"item {rank} has unknown key {unknown[0]!r}")
    text = value.get("text")
    if not isinstance(text, str):
        raise _BadShape(f"item {rank} has no text")
    score = value.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        raise _BadShape(f"item {rank} score {score!r} is not a number or null")
    dia_ids = value.get("dia_ids")
    if dia_ids is not None and (
        isinstance(dia_ids, str)
        or not isinstance(dia_ids, Sequence)
        or not all(isinstance(d, str) for d in dia_ids)
    ):
        raise _BadShape(f"item {rank} dia_ids {dia_ids!r} is not a list of strings or null")
    dates = {}
    for key in ("date_iso", "created_at", "date_raw"):
        date = value.get(key)
        if date is not None and not isinstance(date, str):
            raise _BadShape(f"item {rank} {key} {date!r} is not a string or null")
        dates[key] = date
    return MemoryItem(
        text=text,
        score=None if score is None else float(score),
        date_iso=dates["date_iso"] or dates["created_at"],
        date_raw=dates["date_raw"],
        dia_ids=None if dia_ids is None else tuple(dia_ids),
    )


def to_search_result(value: Any) -> SearchResult:
    items: Any
    answer: Any
    usage: Any
    if isinstance(value, SearchResult):
        items, answer, usage = value.items, value.answer, value.usage
    elif isinstance(value, Mapping):
        unknown = sorted(set(value) - {"items", "answer", "usage"})
        if unknown:
            raise _BadShape(f"result has unknown key {unknown[0]!r} (known: answer, items, usage)")
        items, answer, usage = value.get("items", ()), value.get("answer"), value.get("usage")
    elif isinstance(value, list | tuple):
        items, answer, usage = value, None, None
    else:
        raise _BadShape(
            f"returned {type(value).__name__}; expected a SearchResult, a list of items or a "
            "dict with items"
        )
    if isinstance(items, str) or not isinstance(items, Sequence):
        raise _BadShape(f"items is {type(items).__name__}, expected a list")
    if answer is not None and not isinstance(answer, str):
        raise _BadShape(f"answer is {type(answer).__name__}, expected text or null")
    return SearchResult(
        tuple(to_item(item, rank) for rank, item in enumerate(items, 1)),
        to_usage(usage),
        answer,
    )


class PythonSystem(MemorySystem):
    """Adapter around a user's instance; `python_system_class` makes one subclass per
    `python:module:Class` (its name and flags are the user's)."""

    name = "python"
    user_class: ClassVar[type]

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        self.options = dict(options)
        self.user = construct_user_system(self.name, self.user_class, self.options, context)

    async def _call(
        self,
        method: str,
        *args: Any,
        conversation_id: str | None = None,
        question_id: str | None = None,
        optional: bool = False,
    ) -> Any:
        function: Any = getattr(self.user, method, None)
        if function is None and optional:
            return None
        try:
            result = function(*args)
            return await result if inspect.isawaitable(result) else result
        except Exception as exc:
            raise SystemCallError(
                one_line_error(exc),
                system=self.name,
                call=method,
                conversation_id=conversation_id,
                question_id=question_id,
            ) from exc

    def _bad_shape(self, method: str, exc: _BadShape, **where: str | None) -> SystemCallError:
        return SystemCallError(str(exc), system=self.name, call=method, **where)

    async def start(self) -> None:
        """A failing `start` (a database that is down, a model that will not load) is bad
        input, like an unreachable server: the run stops before anything is written."""
        try:
            await self._call("start", optional=True)
        except SystemCallError as exc:
            raise InputError(f"--system {self.name}: start() raised {exc.reason}") from None

    async def reset(self, conversation_id: str) -> None:
        await self._call("reset", conversation_id, conversation_id=conversation_id)

    async def add(self, session: SessionInput) -> Usage:
        cid = session.conversation_id
        value = await self._call("add", session, conversation_id=cid)
        try:
            return to_usage(value)
        except _BadShape as exc:
            raise self._bad_shape("add", exc, conversation_id=cid) from None

    async def search(self, query: Query) -> SearchResult:
        cid, qid = query.conversation_id, query.question_id
        value = await self._call("search", query, conversation_id=cid, question_id=qid)
        try:
            return to_search_result(value)
        except _BadShape as exc:
            raise self._bad_shape("search", exc, conversation_id=cid, question_id=qid) from None

    async def finish(self, conversation_id: str) -> Usage:
        """The user's `finish(conversation_id)` when defined (a batch index built once)."""
        value = await self._call(
            "finish", conversation_id, conversation_id=conversation_id, optional=True
        )
        try:
            return to_usage(value)
        except _BadShape as exc:
            raise self._bad_shape("finish", exc, conversation_id=conversation_id) from None

    async def already_ingested(self, conversation: Conversation) -> bool:
        """The user's `already_ingested(conversation)` when defined (a persistent store)."""
        cid = conversation.conversation_id
        found = await self._call(
            "already_ingested", conversation, conversation_id=cid, optional=True
        )
        return found is True

    async def aclose(self) -> None:
        await self._call("aclose", optional=True)

    def signature_options(self) -> dict[str, str]:
        """The user's `signature_options()` when defined, else every option given (we
        cannot know which of them change results)."""
        own = getattr(self.user, "signature_options", None)
        inherited = getattr(type(self.user), "signature_options", None)
        if callable(own) and inherited is not MemorySystem.signature_options:
            return {str(k): str(v) for k, v in dict(own()).items()}
        return dict(sorted(self.options.items()))

    def items_in(self, conversation_id: str) -> int | None:
        own = getattr(self.user, "items_in", None)
        if not callable(own):
            return None
        count = own(conversation_id)
        return count if isinstance(count, int) and not isinstance(count, bool) else None


def python_system_class(name: str) -> type[MemorySystem]:
    """The adapter class for `python:module:Class`; bad input raises InputError."""
    user_class = import_user_class(name)
    check_user_class(name, user_class)
    attributes = {
        "name": name,
        "user_class": user_class,
        "ignores_budget": bool(getattr(user_class, "ignores_budget", False)),
        "answers_itself": bool(getattr(user_class, "answers_itself", False)),
        "__doc__": f"{name} behind locoscore's error and shape checks.",
    }
    return type("PythonSystem", (PythonSystem,), attributes)
