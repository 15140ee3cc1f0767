"""A pool of endpoints serving one model (a vLLM or llama.cpp server per GPU node, or
several keys of one provider), used as one endpoint: what the pool is and where it is given.

Given as `--answer-base-url` (or the judge's `--base-url`) repeated, or a small TOML file
(`--answer-pool` / `--pool`):

    [[endpoint]]
    base_url = "http://node1:8000/v1"
    model = "qwen2.5-7b-instruct"   # optional: what the run asks for (refused if another)
    key_env = "NODE1_KEY"          # optional: the variable holding this endpoint's key
    weight = 2                     # optional: its share when capacity is equal (default 1)
    concurrency = 8                # optional: most calls in flight (default: its slots)
    shard = 0                      # optional: with --shard I/N, shard I uses only these

Every member serves the same model: one that names another model in the file, or whose
server lists another model than the others, is refused. The signature names the pool once
(`endpoint:pool`), whichever members answered; `run.json` (and the judge section) lists the
members with their calls and failures. The answer cache is keyed by the pool, not by the
member that answered, so a rerun with a member more or less reuses every answer.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from locoscore.errors import InputError
from locoscore.llm.endpoint import Endpoint, normalise_url
from locoscore.llm.local_server import ServerFacts, discover, serves

POOL_ID = "pool"  # the pool's endpoint in signatures and cache keys
_KEYS = {"base_url", "model", "key_env", "weight", "concurrency", "shard"}


@dataclass(frozen=True)
class PoolMember:
    base_url: str
    model: str | None = None
    key_env: str | None = None
    weight: float = 1.0
    concurrency: int | None = None  # most calls in flight (None: its slots, else adaptive)
    shard: int | None = None  # with --shard I/N: the shard that uses it (None: every shard)
    divide: int = 1  # shared by this many shards: each gets this share of its capacity

    @property
    def url(self) -> str:
        return normalise_url(self.base_url)

    def api_key(self) -> str | None:
        """This endpoint's own key (None: the provider's variable)."""
        if self.key_env is None:
            return None
        value = os.environ.get(self.key_env)
        if not value:
            raise InputError(f"{self.key_env} is not set: the pool's endpoint {self.url} needs it")
        return value

    def to_json(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "key_env": self.key_env,
            "weight": self.weight,
            "concurrency": self.concurrency,
            "shard": self.shard,
            **({"share": f"1/{self.divide}"} if self.divide > 1 else {}),
        }


@dataclass(frozen=True)
class EndpointPool:
    """The members, in the order given; `source`: the option or file that gave them."""

    members: tuple[PoolMember, ...]
    source: str

    def for_shard(self, index: int, count: int) -> EndpointPool:
        """Shard `index`'s part: the members placed on it (`shard = I`) and those placed on
        no shard; without placements, `share` decides."""
        if all(m.shard is None for m in self.members):
            return self.share(index, count)
        kept = tuple(m for m in self.members if m.shard in (None, index))
        if not kept:
            raise InputError(
                f"no endpoint of the pool is placed on shard {index}/{count}", file=self.source
            )
        return replace(self, members=kept)

    def share(self, index: int, count: int) -> EndpointPool:
        """One of `count` shards' share: its own members when there are enough to go round
        (a server's slots go with the server), else every member with its slots divided."""
        if count <= 1:
            return self
        if len(self.members) >= count:
            return replace(self, members=self.members[index::count])
        return replace(self, members=tuple(replace(m, divide=count) for m in self.members))

    @property
    def shared(self) -> bool:
        """Members shared between shards: their capacity is divided, not theirs alone."""
        return any(m.divide > 1 for m in self.members)

    def check_model(self, model: str) -> None:
        """Refuse a member named for another model than the one asked."""
        for member in self.members:
            if member.model is not None and member.model != model:
                raise InputError(
                    f"a pool mixing models: {member.url} is for {member.model}, the run asks "
                    f"for {model}; one pool serves one model",
                    file=self.source,
                )

    def endpoint(self) -> PooledEndpoint:
        return PooledEndpoint(POOL_ID, False, tuple(m.url for m in self.members))

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "members": [m.to_json() for m in self.members]}


@dataclass(frozen=True)
class PooledEndpoint(Endpoint):
    """The pool as the endpoint of a signature and a cache key (`pool`)."""

    members: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return POOL_ID

    def to_json(self) -> dict[str, Any]:
        return {"url": self.url, "default": False, "members": list(self.members)}


def discover_members(
    pool: EndpointPool, provider: str, model: str, key: str | None, *, needs_key: bool = True
) -> list[ServerFacts | None]:
    """What each member says about itself (a compatible server; None for a provider's
    API), in the pool's order; a pool whose members serve different models refused."""
    pool.check_model(model)
    if provider != "openai-compatible":
        for member in pool.members:
            if needs_key:
                member.api_key()  # a missing variable: refused before any call
        return [None] * len(pool.members)
    facts: list[ServerFacts | None] = []
    for member in pool.members:
        own = member.api_key() if needs_key else None
        facts.append(discover(member.base_url, model, own or key))
    served = {m.url: serves(f, model) for m, f in zip(pool.members, facts, strict=True)}
    if len(set(served.values())) > 1:
        named = ", ".join(f"{url} serves {name}" for url, name in served.items())
        raise InputError(
            f"a pool mixing models ({named}): one pool serves one model", file=pool.source
        )
    return facts


def pool_of_urls(urls: Sequence[str], option: str) -> EndpointPool | None:
    """`--answer-base-url` given more than once: a pool of those (None: one or none)."""
    if len(urls) < 2:
        return None
    members = tuple(PoolMember(u) for u in urls)
    _check_members(members, option)
    return EndpointPool(members, option)


def load_pool(path: Path) -> EndpointPool:
    """A pool file (see the module's docstring); bad input names the file, entry and key."""
    where = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read it ({exc.strerror})", file=where) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML ({exc})", file=where) from None
    entries = data.get("endpoint")
    if not isinstance(entries, list) or not entries:
        raise InputError("no [[endpoint]] entries", file=where)
    members = []
    for i, entry in enumerate(entries):
        record = f"endpoint {i}"
        if not isinstance(entry, dict):
            raise InputError("expected a table", file=where, record=record)
        unknown = sorted(set(entry) - _KEYS)
        if unknown:
            raise InputError(
                f"unknown key (expected {', '.join(sorted(_KEYS))})",
                file=where,
                record=record,
                field=unknown[0],
            )
        members.append(_member(entry, where, record))
    _check_members(tuple(members), where)
    return EndpointPool(tuple(members), where)


def _member(entry: dict[str, Any], where: str, record: str) -> PoolMember:
    def typed(key: str, kind: type | tuple[type, ...], positive: bool = False) -> Any:
        value: Any = entry.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, kind):
            raise InputError("wrong type", file=where, record=record, field=key)
        if positive and isinstance(value, int | float) and value <= 0:
            raise InputError("must be more than 0", file=where, record=record, field=key)
        return value

    base_url = typed("base_url", str)
    if base_url is None:
        raise InputError("missing", file=where, record=record, field="base_url")
    normalise_url(base_url, field=f"{record}.base_url")
    shard = typed("shard", int)
    if shard is not None and shard < 0:
        raise InputError("must be 0 or more", file=where, record=record, field="shard")
    weight = typed("weight", (int, float), positive=True)
    return PoolMember(
        base_url,
        model=typed("model", str),
        key_env=typed("key_env", str),
        weight=1.0 if weight is None else float(weight),
        concurrency=typed("concurrency", int, positive=True),
        shard=shard,
    )


def _check_members(members: tuple[PoolMember, ...], where: str) -> None:
    seen: set[str] = set()
    for member in members:
        if member.url in seen:
            raise InputError(f"{member.url} is in the pool twice", file=where)
        seen.add(member.url)
