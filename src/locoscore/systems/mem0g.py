"""`--system mem0 --system-option graph=kuzu` (Mem0g): Mem0 with graph memory, run in an
environment of its own and driven over locoscore's HTTP system contract.

Graph memory exists only in mem0ai 1.0.x; locoscore's `mem0` extra pins 2.2, and the two
cannot share an environment. So Mem0g lives in a pinned virtual environment
(`environments`, built once by `locoscore systems install mem0g`, or at the first run),
where `locoscore serve` runs `_mem0g_library` (the adapter, imported only there) on a free
loopback port; this class starts that server, talks to it with the `http` system, and stops
it at the end. What the server spends it reports per call (the contract carries usage); it
is priced here with the run's price table.

Resume: the stores live in the run's state folder, and a checkpoint here lists the fully
ingested conversations (`already_ingested`), as for mem0 with `store=folder`. No copy of the
key stays in that folder (`_state_secrets`, as for the in-process libraries).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any, ClassVar

from locoscore.data.conversation import Conversation, Query, SessionInput
from locoscore.errors import InputError
from locoscore.llm.cost import PriceTable
from locoscore.systems._ingest_checkpoint import IngestCheckpoint
from locoscore.systems._library_providers import api_key, key_blocker, provider_options
from locoscore.systems._library_system import conversation_folder
from locoscore.systems._mem0g_session import DATE_MESSAGE_ID
from locoscore.systems._state_secrets import scrub_key
from locoscore.systems._usage_meter import Tally
from locoscore.systems.base import MemorySystem, SearchResult, Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.environments import (
    EnvironmentSpec,
    built_python,
    ensure_environment,
    environment_variables,
)
from locoscore.systems.http import HttpSystem
from locoscore.systems.options import OptionSpec, resolve_options, signature_values

MEM0_VERSION = "1.0.11"
ENVIRONMENT = EnvironmentSpec(
    name="mem0g",
    # Kùzu's driver needs only kuzu and rank-bm25 of mem0's `graph` extra (the rest is for
    # Neo4j, Memgraph, Neptune and Apache AGE).
    requirements=(f"mem0ai=={MEM0_VERSION}", "kuzu>=0.11.3,<0.12", "rank-bm25>=0.2.2,<0.3"),
    install_command="locoscore systems install mem0g",
)
SERVED = "python:locoscore.systems._mem0g_library:Mem0GraphLibrary"
TOKEN_ENV = "LOCOSCORE_MEM0G_TOKEN"
START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 30.0
# Options the served library takes as they are (the rest stay here).
_PASSED = (
    "llm_model",
    "llm_base_url",
    "embedder_model",
    "embedder_base_url",
    "embedding_dims",
    "api_key_env",
    "ingest_concurrency",
)


class Mem0GraphSystem(MemorySystem):
    name = "mem0"
    OPTIONS: ClassVar[dict[str, OptionSpec]] = {
        **provider_options("mem0", "vector size of the embedder"),
        "graph": OptionSpec(str, "kuzu", "graph memory (Mem0g): an embedded Kùzu", ("kuzu",)),
        "ingest_concurrency": OptionSpec(
            int, 4, "sessions being added at once, across conversations", in_signature=False
        ),
    }

    def __init__(self, options: dict[str, str], context: SystemContext) -> None:
        self.options: dict[str, Any] = resolve_options("mem0", self.OPTIONS, options)
        self._root = context.state_dir / "mem0g"
        prices = self.options["prices"]
        self._prices = PriceTable.load(Path(prices)) if prices else context.prices
        self._context = context
        self._process: subprocess.Popen[str] | None = None
        self._http: HttpSystem | None = None
        self._items: dict[str, int] = {}
        self._checkpoint = IngestCheckpoint(
            self._root / "ingested.json", self._ingest_settings(), system="mem0g"
        )

    # -- settings -------------------------------------------------------------------------

    def _ingest_settings(self) -> dict[str, str]:
        return {
            **signature_values(self.OPTIONS, self.options),
            "mem0ai": MEM0_VERSION,
            "instructions": DATE_MESSAGE_ID,
        }

    def signature_options(self) -> dict[str, str]:
        return self._ingest_settings()

    def dry_run_blocker(self) -> str | None:
        return key_blocker("mem0", self.options)

    # -- the server -----------------------------------------------------------------------

    async def start(self) -> None:
        api_key("mem0", self.options)
        if built_python(ENVIRONMENT) is None:
            print(
                f"mem0 graph=kuzu: building its environment once ({ENVIRONMENT.install_command}"
                " does it ahead of a run; 1 to 2 minutes, 394 MB)",
                file=sys.stderr,
            )
        python = await asyncio.to_thread(ensure_environment, ENVIRONMENT)
        url = await asyncio.to_thread(self._start_server, python)
        try:
            self._http = await asyncio.to_thread(
                HttpSystem,
                {
                    "url": url,
                    "token_env": TOKEN_ENV,
                    "timeout_s": "600",
                    "max_attempts": "2",
                    "concurrency": "16",
                },
                self._context,
            )
            await self._http.start()
            served = self._http.info.options.get("mem0ai")
            if served != MEM0_VERSION:
                raise InputError(
                    f"--system mem0 graph=kuzu: the environment serves mem0ai {served}, "
                    f"expected {MEM0_VERSION}"
                )
        except BaseException:
            await self.aclose()
            raise

    def _start_server(self, python: Path) -> str:
        self._root.mkdir(parents=True, exist_ok=True)
        command = [
            str(python), "-m", "locoscore", "serve", "--system", SERVED,
            "--host", "127.0.0.1", "--port", "0", "--state-dir", str(self._root),
        ]  # fmt: skip
        for key in _PASSED:
            if self.options[key] is not None:
                command += ["--system-option", f"{key}={self.options[key]}"]
        command += ["--system-option", f"parent_pid={os.getpid()}", "--token-env", TOKEN_ENV]
        # Only this run may read or change its stores: a fresh bearer token per server,
        # handed to the server and to this process's client through the environment.
        os.environ[TOKEN_ENV] = secrets.token_urlsafe(32)
        log = (self._root / "server.log").open("a", encoding="utf-8")
        try:
            self._process = subprocess.Popen(
                command,
                stdout=subprocess.PIPE,
                stderr=log,
                stdin=subprocess.DEVNULL,
                text=True,
                env=environment_variables(ENVIRONMENT),
            )
        finally:
            log.close()
        assert self._process.stdout is not None
        line = _first_line(self._process.stdout, START_TIMEOUT_S)
        if line is None or not line.startswith("listening "):
            self._stop_server()
            raise InputError(
                f"--system mem0 graph=kuzu: its server did not start ({self._log_tail()})"
            )
        return line.split(" ", 1)[1].strip()

    def _log_tail(self) -> str:
        path = self._root / "server.log"
        lines = [s.strip() for s in path.read_text(encoding="utf-8").splitlines() if s.strip()]
        if not lines:
            return f"no output; see {path}"
        # "error: --system python:…:Mem0GraphLibrary: start() raised <the reason>"
        return lines[-1].removeprefix("error: ").split(" raised ", 1)[-1]

    def _stop_server(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()  # SIGTERM: `locoscore serve` closes the stores and exits
            try:
                process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stdout is not None:
            process.stdout.close()

    async def aclose(self) -> None:
        http, self._http = self._http, None
        if http is not None:
            await http.aclose()
        await asyncio.to_thread(self._stop_server)
        await scrub_key(self._root, self.options)  # what the stores wrote as they closed

    def _server(self) -> HttpSystem:
        if self._http is None:
            raise RuntimeError("mem0 graph=kuzu was not started")
        return self._http

    # -- the contract ---------------------------------------------------------------------

    def _priced(self, usage: Usage) -> Usage:
        tally = Tally(
            llm_calls=usage.calls,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            embedding_tokens=usage.embedding_tokens,
        )
        priced = tally.usage(
            self._prices, self.options["llm_model"], self.options["embedder_model"]
        )
        return Usage(
            usage.input_tokens, usage.output_tokens, priced.cost_usd, usage.calls,
            usage.embedding_tokens,
        )  # fmt: skip

    async def reset(self, conversation_id: str) -> None:
        await self._server().reset(conversation_id)
        self._items.pop(conversation_id, None)
        self._checkpoint.forget(conversation_id)

    async def already_ingested(self, conversation: Conversation) -> bool:
        if not self._checkpoint.complete(conversation):
            return False
        # a run killed before it closed may have left what its stores wrote last
        await scrub_key(conversation_folder(self._root, conversation.conversation_id), self.options)
        entry = self._checkpoint.entry(conversation.conversation_id) or {}
        self._items[conversation.conversation_id] = int(entry.get("memories", 0))
        return True

    async def add(self, session: SessionInput) -> Usage:
        server = self._server()
        before = server.items_in(session.conversation_id) or 0
        started = time.perf_counter()
        usage = self._priced(await server.add(session))
        wall_s = time.perf_counter() - started
        after = server.items_in(session.conversation_id) or before
        self._items[session.conversation_id] = after
        # before it counts as stored
        await scrub_key(conversation_folder(self._root, session.conversation_id), self.options)
        self._checkpoint.record(session, after - before, usage, wall_s)
        return usage

    async def search(self, query: Query) -> SearchResult:
        result = await self._server().search(query)
        return SearchResult(result.items, self._priced(result.usage))

    def items_in(self, conversation_id: str) -> int | None:
        return self._items.get(conversation_id)


def _first_line(stream: IO[str], timeout_s: float) -> str | None:
    """The first line a child prints, or None when it exits or stays silent that long."""
    found: list[str] = []
    reader = threading.Thread(target=lambda: found.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout_s)
    return found[0] if found and found[0] else None
