"""The HTTP memory contract `locoscore-memory/1`: its paths and the checked JSON shapes.

Both sides use this module: the server (`systems.serve`) to validate request bodies (a
`ContractError` becomes a 400 naming the field), the client (`systems.http`) to validate
replies (a `ContractError` there is a server that does not speak the contract). The full
contract, with examples, is `docs/http-contract.md`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from locoscore.data.conversation import Query, SessionInput, TurnInput
from locoscore.errors import LocoscoreError
from locoscore.systems.base import MemoryItem, Usage

CONTRACT_VERSION = "locoscore-memory/1"
INFO_PATH = "/v1/info"
# The conversation id is one percent-encoded path segment.
CONVERSATION_ACTIONS = ("reset", "sessions", "search", "answer")


class ContractError(LocoscoreError):
    """A body that does not have the contract's shape; the message names the field."""


def conversation_path(conversation_id: str, action: str) -> str:
    return f"/v1/conversations/{quote(conversation_id, safe='')}/{action}"


def error_body(message: str, error_type: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": error_type}}


# ------------------------------------------------------------------ field checks


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ContractError(f"{where}: expected a JSON object")
    return value


def _string(body: dict[str, Any], key: str, where: str, *, optional: bool = False) -> Any:
    value = body.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        kind = "a string or null" if optional else "a string"
        raise ContractError(f"{where}.{key}: expected {kind}")
    return value


def _integer(body: dict[str, Any], key: str, where: str, *, minimum: int) -> int:
    value = body.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ContractError(f"{where}.{key}: expected an integer >= {minimum}")
    return value


def _number(body: dict[str, Any], key: str, where: str) -> float | None:
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ContractError(f"{where}.{key}: expected a number or null")
    return float(value)


def _strings(body: dict[str, Any], key: str, where: str, *, optional: bool) -> Any:
    value = body.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ContractError(f"{where}.{key}: expected a list of strings")
    return tuple(value)


# ------------------------------------------------------------------ requests


def _body_of(body: Any, conversation_id: str) -> dict[str, Any]:
    """A request's body: an object naming the conversation of its path."""
    body = _object(body, "body")
    if _string(body, "conversation_id", "body") != conversation_id:
        raise ContractError(
            f"body.conversation_id: {body['conversation_id']!r} differs from the path's "
            f"{conversation_id!r}"
        )
    return body


def parse_session(body: Any, conversation_id: str) -> SessionInput:
    """`POST /v1/conversations/{id}/sessions`: the body of `SessionInput.to_json()`."""
    body = _body_of(body, conversation_id)
    turns_raw = body.get("turns")
    if not isinstance(turns_raw, list):
        raise ContractError("body.turns: expected a list")
    turns = []
    for position, raw in enumerate(turns_raw):
        where = f"body.turns[{position}]"
        turn = _object(raw, where)
        turns.append(
            TurnInput(
                speaker=_string(turn, "speaker", where),
                dia_id=_string(turn, "dia_id", where),
                text=_string(turn, "text", where),
                caption=_string(turn, "caption", where, optional=True),
            )
        )
    return SessionInput(
        conversation_id=conversation_id,
        index=_integer(body, "session_index", "body", minimum=0),
        date_raw=_string(body, "date_raw", "body", optional=True),
        date_iso=_string(body, "date_iso", "body", optional=True),
        turns=tuple(turns),
        speakers=_strings(body, "speakers", "body", optional=True) or (),
    )


def parse_query(body: Any, conversation_id: str) -> Query:
    """`POST /v1/conversations/{id}/search` (and `/answer`): `Query.to_json()`."""
    body = _body_of(body, conversation_id)
    return Query(
        conversation_id=conversation_id,
        question_id=_string(body, "question_id", "body"),
        text=_string(body, "query", "body"),
        top_k=_integer(body, "top_k", "body", minimum=1),
        date_iso=_string(body, "date_iso", "body", optional=True),
    )


# ------------------------------------------------------------------ replies


@dataclass(frozen=True)
class ServerInfo:
    """`GET /v1/info`: who is serving, with which options, and what it can do."""

    contract: str
    system: str
    options: dict[str, str]
    answers: bool = False
    ignores_budget: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "contract": self.contract,
            "system": self.system,
            "options": dict(sorted(self.options.items())),
            "capabilities": {"answers": self.answers, "ignores_budget": self.ignores_budget},
        }


def parse_info(body: Any) -> ServerInfo:
    body = _object(body, "info")
    contract = _string(body, "contract", "info")
    if contract != CONTRACT_VERSION:
        raise ContractError(f"info.contract: {contract!r}, expected {CONTRACT_VERSION!r}")
    system = _string(body, "system", "info")
    options = _object(body.get("options", {}), "info.options")
    if not all(isinstance(v, str | int | float | bool) for v in options.values()):
        raise ContractError("info.options: expected an object of strings, numbers or booleans")
    capabilities = _object(body.get("capabilities", {}), "info.capabilities")
    flags = {}
    for key in ("answers", "ignores_budget"):
        value = capabilities.get(key, False)
        if not isinstance(value, bool):
            raise ContractError(f"info.capabilities.{key}: expected true or false")
        flags[key] = value
    return ServerInfo(
        contract=contract,
        system=system,
        options={
            str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in options.items()
        },
        **flags,
    )


def parse_usage(body: dict[str, Any], where: str) -> Usage:
    """The optional `usage` object of a reply: what the server spent on this call."""
    raw = body.get("usage")
    if raw is None:
        return Usage()
    usage = _object(raw, f"{where}.usage")
    cost = _number(usage, "cost_usd", f"{where}.usage")
    if cost is not None and cost < 0:
        raise ContractError(f"{where}.usage.cost_usd: expected a number >= 0 or null")
    counts = {
        key: _integer({key: usage.get(key, 0)}, key, f"{where}.usage", minimum=0)
        for key in ("input_tokens", "output_tokens", "embedding_tokens", "calls")
    }
    return Usage(cost_usd=cost, **counts)


def parse_items_in(body: dict[str, Any], where: str) -> int | None:
    if body.get("items_in") is None:
        return None
    return _integer(body, "items_in", where, minimum=0)


def parse_item(raw: Any, where: str) -> MemoryItem:
    item = _object(raw, where)
    # `created_at` is what Mem0-style servers call the item's date.
    date_key = "date_iso" if item.get("date_iso") is not None else "created_at"
    return MemoryItem(
        text=_string(item, "text", where),
        score=_number(item, "score", where),
        date_iso=_string(item, date_key, where, optional=True),
        date_raw=_string(item, "date_raw", where, optional=True),
        dia_ids=_strings(item, "dia_ids", where, optional=True),
    )


def parse_items(
    body: dict[str, Any], where: str, *, required: bool = True
) -> tuple[MemoryItem, ...]:
    raw = body.get("items")
    if raw is None and not required:
        return ()
    if not isinstance(raw, list):
        raise ContractError(f"{where}.items: expected a list")
    return tuple(parse_item(entry, f"{where}.items[{i}]") for i, entry in enumerate(raw))


def parse_answer(body: dict[str, Any], where: str) -> str:
    return str(_string(body, "answer", where))


def usage_json(usage: Usage) -> dict[str, Any]:
    """`Usage.to_json` with the cost unrounded: the client sums it over many calls."""
    return {**usage.to_json(), "cost_usd": usage.cost_usd}
