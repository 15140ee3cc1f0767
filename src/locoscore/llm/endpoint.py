"""Where a model call went and who answered it: part of what made every number.

The *endpoint* is the normalised base URL (scheme, lowercased host, port, path without a
trailing slash; never userinfo, query or fragment), or the provider's default API when no
base URL is given (the SDKs' own environment variables count as a base URL). It is in every
cache key, and a non-default one is named in signatures as `endpoint:host:port`.

The *served model* is what the server said it served (the `model` field of every reply, in
both wire formats): a dated snapshot of the asked name matches it; anything else is a
mismatch, warned about, recorded as `served:NAME`, and never priced.

locoscore's own fake provider marks every response with the `x-locoscore-fake` header;
results made through it say `fake`, and only those do.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from locoscore.errors import InputError

FAKE_HEADER = "x-locoscore-fake"
DEFAULT_BASE_URLS = {
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com/v1",
    "openai-compatible": "https://api.openai.com/v1",
}
# The SDKs read these when no base_url is passed: a proxy set this way is an endpoint too.
BASE_URL_ENV = {
    "anthropic": "ANTHROPIC_BASE_URL",
    "openai": "OPENAI_BASE_URL",
    "openai-compatible": "OPENAI_BASE_URL",
}
_DEFAULT_PORTS = {"http": 80, "https": 443}
# `gpt-4o-mini-2024-07-18` for gpt-4o-mini, `claude-sonnet-4-5-20250929` for claude-sonnet-4-5.
_SNAPSHOT_SUFFIX = r"-(?:\d{4}-\d{2}-\d{2}|\d{8})"
# A served name goes into `|`-separated signatures: no separators, no spaces.
_UNSAFE = re.compile(r"[|\s]+")


def normalise_url(url: str, *, field: str = "--base-url") -> str:
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = -1
    if scheme not in _DEFAULT_PORTS or not parts.hostname or port == -1:
        raise InputError(f"{url!r} is not an http(s) URL with a host", field=field)
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"  # IPv6
    netloc = host if port is None or port == _DEFAULT_PORTS[scheme] else f"{host}:{port}"
    return f"{scheme}://{netloc}{parts.path.rstrip('/')}"


@dataclass(frozen=True)
class Endpoint:
    url: str  # normalised
    default: bool  # the provider's own API

    @property
    def label(self) -> str:
        """host:port, for signatures (never a path, token or query)."""
        parts = urlsplit(self.url)
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        return f"{host}:{parts.port or _DEFAULT_PORTS[parts.scheme]}"

    @property
    def signature(self) -> str:
        return "" if self.default else f"|endpoint:{self.label}"

    def to_json(self) -> dict[str, Any]:
        return {"url": self.url, "default": self.default}


def resolve_endpoint(provider: str, base_url: str | None, *, field: str = "--base-url") -> Endpoint:
    default = DEFAULT_BASE_URLS.get(provider, DEFAULT_BASE_URLS["openai"])
    given = base_url or os.environ.get(BASE_URL_ENV.get(provider, "")) or None
    if not given:
        return Endpoint(default, True)
    url = normalise_url(given, field=field)
    return Endpoint(url, url == default)


def model_matches(asked: str, served: str) -> bool:
    """The asked name itself, or a dated snapshot of it."""
    return served == asked or re.fullmatch(re.escape(asked) + _SNAPSHOT_SUFFIX, served) is not None


def safe_model_name(name: str) -> str:
    return _UNSAFE.sub("_", name.strip())


@dataclass(frozen=True)
class Served:
    """Who answered a pass: the distinct served model names, and whether it was the fake."""

    models: tuple[str, ...] = ()
    fake: bool = False

    @classmethod
    def of(cls, pairs: Iterable[tuple[str | None, bool]]) -> Served:
        """From (served model, fake) of each reply or cached row."""
        models: dict[str, None] = {}
        fake = False
        for model, is_fake in pairs:
            if model:
                models[model] = None
            fake = fake or is_fake
        return cls(tuple(sorted(models)), fake)

    @property
    def signature(self) -> str:
        served = f"|served:{'+'.join(self.models)}" if self.models else ""
        return served + ("|fake" if self.fake else "")

    def mismatches(self, asked: str) -> list[str]:
        return [m for m in self.models if not model_matches(asked, m)]

    def to_json(self) -> dict[str, Any]:
        return {"models": list(self.models), "fake": self.fake}


def without_served(signature: str) -> str:
    """A signature without what only the calls could tell (`served:`, `fake`): the identity
    a rerun is checked against before it has made a call."""
    return re.sub(r"\|(?:served:[^|]*|fake)(?=\||$)", "", signature)


class WireLog:
    """What one client's responses said about the server (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.fake = False

    async def on_response(self, response: Any) -> None:
        """An httpx response hook: every response, batches and errors included."""
        if response.headers.get(FAKE_HEADER):
            with self._lock:
                self.fake = True


def served_note(asked: str, served: Served, endpoint: Endpoint, what: str) -> str | None:
    """The one warning a model mismatch gives, or None when every reply matched."""
    wrong = served.mismatches(asked)
    if not wrong:
        return None
    where = "the provider's API" if endpoint.default else endpoint.url
    return (
        f"{what}: asked for {asked}, {where} served {', '.join(wrong)}; the signature "
        f"records served:{'+'.join(served.models)} and the cost is n/a (prices apply only to "
        "a model that was really served)"
    )


def through_sentence(verb: str, endpoint: dict[str, Any] | None, fake: bool) -> str | None:
    """'judged through http://127.0.0.1:8080 (not the provider's API)', for reports; None at
    the provider's own API."""
    if fake:
        url = (endpoint or {}).get("url") or "a local server"
        return f"{verb} through {url} (locoscore's fake provider, not a real model)"
    if not endpoint or endpoint.get("default", True):
        return None
    return f"{verb} through {endpoint['url']} (not the provider's API)"
