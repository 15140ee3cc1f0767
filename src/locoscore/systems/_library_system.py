"""What the in-process memory libraries (mem0, graphiti, langmem, a-mem) share: one store per
conversation in a folder of the run, an ingestion slot, timed and metered adds recorded in
the resume checkpoint, the count of items each conversation holds, and the library's version.

A subclass sets `name`, `OPTIONS` (with `prices`, `llm_model`, `embedder_model` and
`ingest_concurrency`), `NO_DATE` (what the library does with a session that has no date),
`DISTRIBUTION` and `ADDED_INPUT` (what the checkpoint and the run signature are keyed on), and
implements `_installed_version`, `_store_session` (the library's add of one session, its
calls counted with `UsageMeter.counting()`) and `_close` (its stores and clients), plus
`reset` and `search`. No copy of the API key stays in the state folder (`_state_secrets`).
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import threading
import warnings
from abc import abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from locoscore._io import sha256_text, write_json_atomic
from locoscore.data.conversation import Conversation, SessionInput
from locoscore.errors import InputError
from locoscore.llm.cost import PriceTable
from locoscore.systems._ingest_checkpoint import IngestCheckpoint
from locoscore.systems._ingest_slots import IngestSlots
from locoscore.systems._library_providers import (
    TIMEOUT_S,
    api_key,
    base_url,
    key_blocker,
    openai_client,
)
from locoscore.systems._state_secrets import scrub_key
from locoscore.systems._usage_meter import Tally, UsageMeter
from locoscore.systems.base import MemorySystem, Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.options import OptionSpec, resolve_options, signature_values


def library_version(system: str, distribution: str, series: str, hint: str) -> str:
    """The installed version of the library `--system NAME` drives (read from its metadata,
    not imported); an InputError naming the install command when it is absent or another
    series."""
    try:
        version = importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        raise InputError(f"--system {system} needs the {system} extra ({hint})") from None
    if not version.startswith(series):
        raise InputError(
            f"--system {system} drives {distribution} {series}x; this environment has "
            f"{version} ({hint})"
        )
    return version


def folder_name(conversation_id: str) -> str:
    """A conversation's folder: readable, and unique even where the id's characters are not
    allowed in a file name."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", conversation_id)[:60]
    digest = sha256_text(conversation_id)[:8]
    return f"{safe}-{digest}"


def conversation_folder(root: Path, conversation_id: str) -> Path:
    """Where a system whose state folder is `root` keeps one conversation's stores."""
    return root / "conversations" / folder_name(conversation_id)


class SessionMap:
    """Where each record a library made for a conversation (a note, an episode) came from:
    its session's index and dates (and `more`, such as the turn), in a JSON file beside the
    conversation's store, read back on resume."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = {}
        if path.exists():
            self.entries = json.loads(path.read_text(encoding="utf-8"))

    def record(self, key: str, session: SessionInput, **more: Any) -> None:
        self.entries[key] = {
            "session": session.index,
            **more,
            "date_iso": session.date_iso,
            "date_raw": session.date_raw,
        }

    def save(self) -> None:
        write_json_atomic(self.path, self.entries)


@dataclass(frozen=True)
class Stored:
    """What one session's add spent and made: `written` items (the checkpoint's count), and
    `held`, the conversation's total afterwards where the library says it (else the sum of
    `written`)."""

    tally: Tally
    written: int
    held: int | None = None


class LibraryMemorySystem(MemorySystem):
    OPTIONS: ClassVar[dict[str, OptionSpec]]
    NO_DATE: ClassVar[str]
    # The library's distribution: its version's key in the ingestion settings.
    DISTRIBUTION: ClassVar[str]
    # What locoscore adds to the library's input (instructions, a message format): a key and
    # the hash of its text, in the ingestion settings.
    ADDED_INPUT: ClassVar[tuple[str, str]]

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        self.options: dict[str, Any] = resolve_options(self.name, self.OPTIONS, options)
        self._root = context.state_dir / self.name
        self._version = self._installed_version()
        prices = self.options["prices"]
        # Its own `prices=` file, else the run's --prices table.
        self._prices = PriceTable.load(Path(prices)) if prices else context.prices
        self._items_in: dict[str, int] = {}
        self._lock = threading.Lock()  # the counts, the HTTP clients, a subclass's stores
        self._http_clients: list[Any] = []  # opened by `_http_client`, closed with the system
        self._slots = IngestSlots(self.options["ingest_concurrency"])
        self._checkpoint = (
            IngestCheckpoint(self._root / "ingested.json", self._ingest_settings(), self.name)
            if self._resumable()
            else None
        )

    @abstractmethod
    def _installed_version(self) -> str: ...

    def _ingest_settings(self) -> dict[str, str]:
        """What the store was built with: the options that change results, the library's
        version and what locoscore adds to its input."""
        key, digest = self.ADDED_INPUT
        return {
            **signature_values(self.OPTIONS, self.options),
            self.DISTRIBUTION: self._version,
            key: digest,
        }

    @abstractmethod
    async def _store_session(self, session: SessionInput) -> Stored: ...

    @abstractmethod
    async def _close(self) -> None:
        """Release the library's stores and clients."""

    async def aclose(self) -> None:
        await self._close()
        await scrub_key(self._root, self.options)  # what the stores wrote as they closed

    def signature_options(self) -> dict[str, str]:
        return self._ingest_settings()

    def runtime(self) -> dict[str, Any] | None:
        """Where the library's own LLM and embedder were served, for run.json. Not in the
        signature (the served models are, by name): a port changes between two runs of one
        server, which must not block a resume. Credentials in a URL are scrubbed."""
        keys = ("llm_base_url", "embedder_base_url")
        return {key: _public_url(self._base_url(key)) for key in keys if key in self.OPTIONS}

    def dry_run_blocker(self) -> str | None:
        return key_blocker(self.name, self.options)

    def _api_key(self) -> str:
        return api_key(self.name, self.options)

    def _base_url(self, key: str) -> str:
        """The URL of the LLM (`llm_base_url`) or of the embedder (`embedder_base_url`)."""
        return base_url(self.options, key)

    def _http_client(self, meter: UsageMeter) -> Any:
        """An HTTP client that meters usage into `meter`, kept to be closed with the system."""
        http = meter.http_client(TIMEOUT_S)
        with self._lock:
            self._http_clients.append(http)
        return http

    def _close_http_clients(self) -> None:
        with self._lock:
            clients, self._http_clients = self._http_clients, []
        for http in clients:
            http.close()

    def _openai_client(self, url_key: str, http: Any) -> Any:
        """An OpenAI client of the LLM or the embedder (`url_key`) on a metering `http`."""
        return openai_client(self.name, self.options, url_key, http)

    def _resumable(self) -> bool:
        """The store outlives the process (a checkpoint is kept)."""
        return True

    def _folder(self, conversation_id: str) -> Path:
        return conversation_folder(self._root, conversation_id)

    def _forget(self, conversation_id: str) -> None:
        """A reset's bookkeeping: the count and the checkpoint's entry."""
        with self._lock:
            self._items_in.pop(conversation_id, None)
        if self._checkpoint is not None:
            self._checkpoint.forget(conversation_id)

    async def already_ingested(self, conversation: Conversation) -> bool:
        if self._checkpoint is None or not self._folder(conversation.conversation_id).exists():
            return False
        if not self._checkpoint.complete(conversation):
            return False
        # a run killed before it closed may have left what its stores wrote last
        await scrub_key(self._folder(conversation.conversation_id), self.options)
        entry = self._checkpoint.entry(conversation.conversation_id) or {}
        with self._lock:
            self._items_in[conversation.conversation_id] = int(entry.get("memories", 0))
        return True

    async def add(self, session: SessionInput) -> Usage:
        if not session.date_iso:
            warnings.warn(
                f"{self.name}: {session.conversation_id} session {session.index} has no date; "
                f"{self.NO_DATE}",
                stacklevel=2,
            )
        stored, wall_s = await self._slots.timed(self._store_session(session))
        # before it counts as stored
        await scrub_key(self._folder(session.conversation_id), self.options)
        usage = self._usage(stored.tally)
        if stored.tally.truncated:
            self._warn_truncated(session)
        with self._lock:
            previous = self._items_in.get(session.conversation_id, 0)
            held = stored.held if stored.held is not None else previous + stored.written
            self._items_in[session.conversation_id] = held
        if self._checkpoint is not None:
            self._checkpoint.record(session, stored.written, usage, wall_s)
        return usage

    def _warn_truncated(self, session: SessionInput) -> None:
        warnings.warn(
            f"{self.name}: {session.conversation_id} session {session.index}: a reply of its "
            "LLM was cut at the token limit",
            stacklevel=3,
        )

    def _usage(self, tally: Tally) -> Usage:
        return tally.usage(self._prices, self.options["llm_model"], self.options["embedder_model"])

    def items_in(self, conversation_id: str) -> int | None:
        with self._lock:
            return self._items_in.get(conversation_id)


def _public_url(url: str) -> str:
    """The URL without the user and password it may carry, and without any known secret."""
    from urllib.parse import urlsplit, urlunsplit

    from locoscore.llm.call_errors import redact_secrets

    parts = urlsplit(url)
    if parts.username is not None or parts.password is not None:
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port is not None else host
        parts = parts._replace(netloc=netloc)
    return redact_secrets(urlunsplit(parts))
