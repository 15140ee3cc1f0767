"""`letta`: the Letta server (0.11.7, the last release that runs on SQLite), one agent per
conversation, driven over its REST API against the user's OpenAI-compatible providers.

How locoscore drives it (docs/how-to/systems/letta.md says why):

- The server runs from its own pinned environment (`_letta_server`), started by locoscore on a
  free loopback port with its SQLite database inside the run's state folder, or is the one
  at `url=`. Locoscore talks to it with httpx (no Letta client in locoscore's environment).
- Its model calls go through a metering proxy (`_metering_proxy`): each agent's LLM and
  embedder endpoints are the proxy's, tagged by conversation; the proxy forwards to the
  configured base URLs with the key and counts the usage of every reply.
- One agent (memgpt_v2_agent, Letta's base tools) per conversation. Each session is one
  request to the agent, as Letta is used: a header naming the session and its date, then
  one user message per turn (`name` = the speaker, content "Speaker: text [shares an image:
  caption]"); the agent keeps what it decides in its core memory blocks.
- Search (no model call): what the agent holds in its context window, as it holds it: its
  core memory blocks, then the turns not evicted, in order, each dated by its session (no
  top-k: Letta retrieves by query only through its agent's own tool calls; `answer=agent`).
- Resume: a checkpoint lists the fully ingested conversations (`_ingest_checkpoint`) and a
  sidecar the agent of each; reset deletes the agent.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any, ClassVar

import httpx

from locoscore._io import write_json_atomic
from locoscore.data.conversation import Conversation, Query, SessionInput
from locoscore.errors import InputError
from locoscore.llm.cost import PriceTable
from locoscore.systems._ingest_checkpoint import IngestCheckpoint
from locoscore.systems._ingest_slots import IngestSlots
from locoscore.systems._letta_agent import (
    AGENT_FORMAT_ID,
    agent_body,
    block_item,
    session_messages,
    turn_item,
)
from locoscore.systems._letta_answer import QUESTION_FORMAT_ID, ask_agent, point_agent
from locoscore.systems._letta_server import (
    LETTA_VERSION,
    LettaProcess,
    letta_python,
    server_version,
)
from locoscore.systems._library_providers import api_key, base_url, key_blocker, provider_options
from locoscore.systems._library_system import folder_name
from locoscore.systems._metering_proxy import MeteringProxy
from locoscore.systems._usage_meter import Tally
from locoscore.systems.base import MemoryItem, MemorySystem, SearchResult, Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.options import OptionSpec, resolve_options, signature_values

SUPPORTED_SERIES = "0.11."
ALL_MESSAGES = 100_000


class LettaError(RuntimeError):
    """A Letta server call failed (recorded against the conversation or question)."""


class LettaSystem(MemorySystem):
    name = "letta"
    # What Letta gives an answer is its agent's context window (core memory and the turns
    # it still holds), not a top-k: the run's --top-k and --context-budget do not apply.
    ignores_budget = True
    OPTIONS: ClassVar[dict[str, OptionSpec]] = {
        **provider_options("Letta's agent", "vector size of the embedder"),
        "context_window": OptionSpec(int, 128_000, "the agent's context window (tokens)"),
        "answer": OptionSpec(
            str,
            "locoscore",
            "the run's answerer over Letta's memory, or the agent's own answer",
            ("locoscore", "agent"),
        ),
        "url": OptionSpec(
            str, None, "a running Letta 0.11 server (default: start one)", in_signature=False
        ),
        "python": OptionSpec(
            str,
            None,
            "Python of a Letta environment (default: the cached one)",
            in_signature=False,
        ),
        "startup_timeout_s": OptionSpec(
            float, 600.0, "seconds the server may take to start", in_signature=False
        ),
        "timeout_s": OptionSpec(float, 600.0, "seconds per request", in_signature=False),
        "ingest_concurrency": OptionSpec(
            int, 1, "sessions being added at once, across conversations", in_signature=False
        ),
    }

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        self.options: dict[str, Any] = resolve_options(self.name, self.OPTIONS, options)
        self._root = context.state_dir / "letta"
        url = self.options["url"]
        self._version = server_version(url) if url else LETTA_VERSION
        if not self._version.startswith(SUPPORTED_SERIES):
            raise InputError(
                f"--system-option url={url}: Letta {self._version}; locoscore drives the "
                f"{SUPPORTED_SERIES}x server (the last on SQLite)"
            )
        prices = self.options["prices"]
        self._prices = PriceTable.load(Path(prices)) if prices else context.prices
        self._process: LettaProcess | None = None
        self._proxy: MeteringProxy | None = None
        self._http: httpx.Client | None = None
        self._lock = threading.Lock()
        self._agents_file = self._root / "agents.json"
        self._agents: dict[str, dict[str, Any]] = self._load_agents()
        self._cached: dict[str, tuple[MemoryItem, ...]] = {}
        self._slots = IngestSlots(self.options["ingest_concurrency"])
        # answer=agent: one question at a time per agent (its context is saved and restored),
        # and agents of an earlier process pointed at this process's proxy once.
        self._question_locks: dict[str, threading.Lock] = {}
        self._pointed: set[str] = set()
        vars(self)["answers_itself"] = self.options["answer"] == "agent"
        self._checkpoint = IngestCheckpoint(
            self._root / "ingested.json", self._ingest_settings(), system=self.name
        )

    # -- settings -------------------------------------------------------------------------

    def _ingest_settings(self) -> dict[str, str]:
        """What the stored agents depend on (not how questions are answered: an agent
        ingested for one answer step serves the other)."""
        values = signature_values(self.OPTIONS, self.options)
        values.pop("answer", None)
        return {**values, "letta": self._version, "agent": AGENT_FORMAT_ID}

    def signature_options(self) -> dict[str, str]:
        signature = {
            **self._ingest_settings(),
            "answer": self.options["answer"],
            "search": "core-memory+context-window",
        }
        if self.answers_itself:
            signature["question"] = QUESTION_FORMAT_ID
        return signature

    def dry_run_blocker(self) -> str | None:
        return key_blocker(self.name, self.options)

    # -- lifecycle ------------------------------------------------------------------------

    async def start(self) -> None:
        """Check the key, start the metering proxy and the server (or reach `url=`)."""
        key = api_key(self.name, self.options)
        await asyncio.to_thread(self._start, key)

    def _start(self, key: str) -> None:
        if self._http is not None:
            return
        upstreams = {
            "llm": base_url(self.options, "llm_base_url"),
            "emb": base_url(self.options, "embedder_base_url"),
        }
        self._proxy = MeteringProxy(upstreams, key, self.options["timeout_s"]).start()
        url = self.options["url"]
        if url is None:
            python = letta_python(self.options["python"])
            self._process = LettaProcess(
                python, self._root / "home", self.options["startup_timeout_s"]
            )
            try:
                url = self._process.start()
            except BaseException:
                self._proxy.stop()
                raise
        self._http = httpx.Client(
            base_url=url.rstrip("/") + "/v1", timeout=self.options["timeout_s"]
        )

    async def aclose(self) -> None:
        await asyncio.to_thread(self._close)

    def _close(self) -> None:
        http, self._http = self._http, None
        if http is not None:
            http.close()
        process, self._process = self._process, None
        if process is not None:
            process.stop()
        proxy, self._proxy = self._proxy, None
        if proxy is not None:
            proxy.stop()

    # -- REST -----------------------------------------------------------------------------

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        if self._http is None:
            raise LettaError("--system letta was not started")
        try:
            reply = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise LettaError(f"Letta {method} {path}: {type(exc).__name__}") from None
        if reply.status_code == 404 and method == "DELETE":
            return None
        if reply.status_code >= 400:
            detail = " ".join(reply.text.split())[:300]
            raise LettaError(f"Letta {method} {path}: HTTP {reply.status_code} {detail}")
        return reply.json() if reply.content else None

    # -- agents ---------------------------------------------------------------------------

    def _load_agents(self) -> dict[str, dict[str, Any]]:
        if not self._agents_file.exists():
            return {}
        data = json.loads(self._agents_file.read_text(encoding="utf-8"))
        return dict(data) if isinstance(data, dict) else {}

    def _save_agents(self) -> None:
        write_json_atomic(self._agents_file, self._agents)

    def _agent(self, conversation_id: str) -> dict[str, Any] | None:
        with self._lock:
            entry = self._agents.get(conversation_id)
            return None if entry is None else dict(entry)

    async def reset(self, conversation_id: str) -> None:
        """Delete the conversation's agent (its messages and memory blocks go with it)."""
        await asyncio.to_thread(self._reset, conversation_id)
        self._checkpoint.forget(conversation_id)

    def _reset(self, conversation_id: str) -> None:
        name = f"locoscore-{folder_name(conversation_id)}"
        stale = {a["id"] for a in self._call("GET", "/agents/", params={"name": name}) or []}
        with self._lock:
            entry = self._agents.pop(conversation_id, None)
            self._cached.pop(conversation_id, None)
            self._pointed.discard(conversation_id)
            self._save_agents()
        if entry is not None:
            stale.add(entry["agent_id"])
        for agent_id in sorted(stale):
            self._call("DELETE", f"/agents/{agent_id}")

    def _create_agent(self, session: SessionInput) -> dict[str, Any]:
        assert self._proxy is not None
        tag = folder_name(session.conversation_id)
        body = agent_body(
            f"locoscore-{tag}",
            session.speakers,
            self.options,
            llm_url=self._proxy.base_url(tag, "llm"),
            embedder_url=self._proxy.base_url(tag, "emb"),
        )
        agent = self._call("POST", "/agents/", json=body)
        entry = {"agent_id": agent["id"], "sessions": {}}
        with self._lock:
            self._pointed.add(session.conversation_id)
            self._agents[session.conversation_id] = entry
            self._save_agents()
        return dict(entry)

    async def already_ingested(self, conversation: Conversation) -> bool:
        entry = self._agent(conversation.conversation_id)
        if entry is None or not self._checkpoint.complete(conversation):
            return False
        try:
            await asyncio.to_thread(self._call, "GET", f"/agents/{entry['agent_id']}")
        except LettaError:
            return False  # the agent is gone (another server, a deleted database)
        return True

    # -- add and search -------------------------------------------------------------------

    async def add(self, session: SessionInput) -> Usage:
        tally, wall_s = await self._slots.timed(asyncio.to_thread(self._add, session))
        usage = self._usage(tally)
        self._checkpoint.record(session, len(session.turns), usage, wall_s)
        return usage

    def _add(self, session: SessionInput) -> Tally:
        assert self._proxy is not None
        cid = session.conversation_id
        entry = self._agent(cid) or self._create_agent(session)
        tag = folder_name(cid)
        # (What a failed request of this conversation spent is still in the tag's tally: it
        # is counted with this session rather than lost.)
        if session.turns:
            messages = session_messages(session)
            self._call("POST", f"/agents/{entry['agent_id']}/messages", json={"messages": messages})
        tally = self._proxy.drain(tag)
        with self._lock:
            stored = self._agents.get(cid)
            if stored is not None:
                stored["sessions"][str(session.index)] = [session.date_iso, session.date_raw]
                self._save_agents()
            self._cached.pop(cid, None)
        return tally

    def _usage(self, tally: Tally) -> Usage:
        return tally.usage(self._prices, self.options["llm_model"], self.options["embedder_model"])

    async def search(self, query: Query) -> SearchResult:
        if self.answers_itself:
            tally, answer, items = await asyncio.to_thread(self._ask, query)
            return SearchResult(items, self._usage(tally), answer)
        items = await asyncio.to_thread(self._memory, query.conversation_id)
        tally = self._proxy.drain(folder_name(query.conversation_id)) if self._proxy else Tally()
        return SearchResult(items, self._usage(tally))

    def _ask(self, query: Query) -> tuple[Tally, str, tuple[MemoryItem, ...]]:
        """The agent's own answer (what it spent), and its memory as the record's items."""
        cid = query.conversation_id
        entry = self._agent(cid)
        if entry is None or self._proxy is None:
            return Tally(), "", ()
        items = self._memory(cid)
        tag = folder_name(cid)
        with self._lock:
            lock = self._question_locks.setdefault(cid, threading.Lock())
        with lock:
            if cid not in self._pointed:
                llm, embedder = self._proxy.base_url(tag, "llm"), self._proxy.base_url(tag, "emb")
                point_agent(self._call, entry["agent_id"], llm, embedder)
                self._pointed.add(cid)
            answer = ask_agent(self._call, entry["agent_id"], query)
            return self._proxy.drain(tag), answer, items

    def _memory(self, conversation_id: str) -> tuple[MemoryItem, ...]:
        """The agent's context as it holds it: its core memory blocks, then the turns still
        in its context window, in the order they were said."""
        with self._lock:
            cached = self._cached.get(conversation_id)
        if cached is not None:
            return cached
        entry = self._agent(conversation_id)
        if entry is None:
            return ()
        agent_id = entry["agent_id"]
        sessions: dict[str, list[str | None]] = entry["sessions"]
        last = sessions[max(sessions, key=int)] if sessions else [None, None]
        blocks = self._call("GET", f"/agents/{agent_id}/core-memory/blocks")
        items = [block_item(b, last[0], last[1]) for b in blocks if b.get("label") != "persona"]
        in_context = set(self._call("GET", f"/agents/{agent_id}").get("message_ids") or [])
        params = {"limit": ALL_MESSAGES, "use_assistant_message": True}
        turns = []
        for message in self._call("GET", f"/agents/{agent_id}/messages", params=params):
            if in_context and message.get("id") not in in_context:
                continue  # evicted from the context window: only the agent's search finds it
            turn = turn_item(message, sessions)
            if turn is not None:
                turns.append(turn)
        turns.sort(key=lambda turn: turn[0])
        result = tuple(items + [item for _, item in turns])
        with self._lock:
            self._cached[conversation_id] = result
        return result

    def items_in(self, conversation_id: str) -> int | None:
        entry = self._checkpoint.entry(conversation_id)
        return None if entry is None else int(entry.get("memories", 0))
