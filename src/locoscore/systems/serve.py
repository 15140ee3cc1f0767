"""`locoscore serve`: any built-in memory system behind the HTTP contract.

The reference implementation of `locoscore-memory/1` (see `http_contract` and
`docs/http-contract.md`), a sidecar for non-Python stacks, and the peer of the HTTP client's
tests. Standard library only: a threading HTTP/1.1 server (one thread per connection, so a
run's 64 concurrent searches are served at once) hands every call to one asyncio loop
running in its own thread, where the system lives; the system's coroutines therefore never
run concurrently with each other on two threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import re
import sys
import threading
from collections.abc import Coroutine
from typing import Any, Self, TypeVar
from urllib.parse import unquote

from locoscore._http_server import (
    BackgroundServer,
    OwnedHTTPServer,
    ServedInBackground,
    TrackingHandler,
)
from locoscore.llm.call_errors import one_line_error
from locoscore.systems.base import MemorySystem, Usage
from locoscore.systems.http_contract import (
    CONTRACT_VERSION,
    INFO_PATH,
    ContractError,
    ServerInfo,
    error_body,
    parse_query,
    parse_session,
    usage_json,
)

T = TypeVar("T")
_CONVERSATION = re.compile(r"/v1/conversations/(?P<id>[^/]+)/(?P<action>[a-z]+)/?")
MAX_BODY_BYTES = 64 * 1024 * 1024


class Reply:
    """A JSON reply: status and body."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        self.status = status
        self.body = body


def _error(status: int, message: str, error_type: str) -> Reply:
    return Reply(status, error_body(message, error_type))


class MemoryServer(BackgroundServer):
    """One system served on host:port (0 picks a free port) until `stop()`.

    `token`: when set, every request must carry `Authorization: Bearer <token>`.
    """

    def __init__(
        self,
        system: MemorySystem,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str | None = None,
    ) -> None:
        self.system = system
        self._host, self._port = host, port
        self._token = token
        # Sessions stored since each conversation's last reset, with the reply given: the
        # client retries an add that timed out, and a retry must not store it twice.
        self._added: dict[str, dict[int, dict[str, Any]]] = {}
        self._added_lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._loop_thread: threading.Thread | None = None
        self._running: ServedInBackground | None = None

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> Self:
        """Start the loop, the system (its own checks may raise InputError), then listen."""
        self._loop_thread = threading.Thread(
            target=self._loop.run_forever, name="memory-server-loop", daemon=True
        )
        self._loop_thread.start()
        try:
            self.call(self.system.start())
        except BaseException:
            self._stop_loop()
            raise
        try:
            server = OwnedHTTPServer((self._host, self._port), _Handler, self)
        except BaseException:
            with contextlib.suppress(Exception):
                self.call(self.system.aclose())
            self._stop_loop()
            raise
        self._running = ServedInBackground(server, "memory-server")
        return self

    def stop(self) -> None:
        running, self._running = self._running, None
        if running is not None:
            running.stop()
            with contextlib.suppress(Exception):
                self.call(self.system.aclose())
        self._stop_loop()

    def _stop_loop(self) -> None:
        if self._loop_thread is not None and self._loop_thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._loop_thread.join(timeout=5)
        if not self._loop.is_running():
            self._loop.close()

    @property
    def url(self) -> str:
        if self._running is None:
            raise RuntimeError("the memory server is not running")
        port = int(self._running.server.server_address[1])
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{host}:{port}"

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run one of the system's coroutines on the server's loop; block for its result."""
        if self._loop.is_closed():
            coro.close()
            raise RuntimeError("the memory server is stopping")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    # ---------------------------------------------------------------- requests

    def info(self) -> ServerInfo:
        system = self.system
        return ServerInfo(
            contract=CONTRACT_VERSION,
            system=system.name,
            options=system.signature_options(),
            answers=system.answers_itself,
            ignores_budget=system.ignores_budget,
        )

    def authorized(self, header: str | None) -> bool:
        if self._token is None:
            return True
        expected = f"Bearer {self._token}".encode()
        return hmac.compare_digest((header or "").encode(), expected)

    def handle(self, method: str, path: str, authorization: str | None, raw: bytes) -> Reply:
        """One request, end to end: auth, route, body checks, the system's call."""
        if not self.authorized(authorization):
            return _error(401, "missing or wrong bearer token", "unauthorized")
        if path.rstrip("/") == INFO_PATH:
            if method != "GET":
                return _error(405, f"{method} {path}: use GET", "method_not_allowed")
            return Reply(200, self.info().to_json())
        match = _CONVERSATION.fullmatch(path)
        if match is None or match["action"] not in ("reset", "sessions", "search", "answer"):
            return _error(404, f"{method} {path} is not part of {CONTRACT_VERSION}", "not_found")
        if method != "POST":
            return _error(405, f"{method} {path}: use POST", "method_not_allowed")
        try:
            body = json.loads(raw) if raw.strip() else None
        except ValueError:
            return _error(400, "body is not valid JSON", "invalid_request")
        conversation_id = unquote(match["id"])
        try:
            return self._conversation_call(match["action"], conversation_id, body)
        except ContractError as exc:
            return _error(400, str(exc), "invalid_request")
        except Exception as exc:  # the system's own failure: a 500 the client may retry
            message = one_line_error(exc)
            print(f"error: {conversation_id} {match['action']}: {message}", file=sys.stderr)
            return _error(500, message, "server_error")

    def _conversation_call(self, action: str, conversation_id: str, body: Any) -> Reply:
        system = self.system
        reply: dict[str, Any] = {"conversation_id": conversation_id}
        if action == "reset":
            self.call(system.reset(conversation_id))
            with self._added_lock:
                self._added.pop(conversation_id, None)
        elif action == "sessions":
            session = parse_session(body, conversation_id)
            with self._added_lock:
                earlier = self._added.get(conversation_id, {}).get(session.index)
            if earlier is not None:  # a retry of an add already stored: not stored twice
                return Reply(200, {**earlier, "items_in": system.items_in(conversation_id)})
            usage = self.call(system.add(session))
            reply["session_index"] = session.index
            reply["usage"] = usage_json(usage or Usage())  # a user's class may return None
            with self._added_lock:
                self._added.setdefault(conversation_id, {})[session.index] = dict(reply)
        else:
            if action == "answer" and not system.answers_itself:
                return _error(
                    404, f"{system.name} does not answer questions itself", "not_supported"
                )
            query = parse_query(body, conversation_id)
            result = self.call(system.search(query))
            reply["question_id"] = query.question_id
            reply["items"] = [item.to_json() for item in result.items]
            reply["usage"] = usage_json(result.usage)
            if action == "answer":
                reply["answer"] = result.answer or ""
        reply["items_in"] = system.items_in(conversation_id)
        return Reply(200, reply)


class _Handler(TrackingHandler):
    server: OwnedHTTPServer[MemoryServer]

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def _serve(self, method: str) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_BODY_BYTES:
            self.close_connection = True
            reply = _error(413, f"body over {MAX_BODY_BYTES} bytes", "invalid_request")
        else:
            raw = self.rfile.read(length) if length > 0 else b""
            path = self.path.split("?", 1)[0]
            reply = self.server.owner.handle(method, path, self.headers.get("authorization"), raw)
        try:
            data = json.dumps(reply.body, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except ValueError:  # a NaN or infinite score: not JSON
            reply = _error(500, "the system returned a non-finite number", "server_error")
            data = json.dumps(reply.body).encode("utf-8")
        try:
            self.send_response(reply.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            self.close_connection = True
