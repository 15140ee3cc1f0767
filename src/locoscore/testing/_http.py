"""The fake provider's HTTP layer: a threading HTTP/1.1 (keep-alive) server, the route
table of both wire formats, request logging with credentials redacted, and the faults that
act on the connection itself (hang, drop)."""

from __future__ import annotations

import contextlib
import json
import re
import select
import socket
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from locoscore._http_server import OwnedHTTPServer, TrackingHandler
from locoscore.llm.endpoint import FAKE_HEADER
from locoscore.testing import (
    _anthropic_batches,
    _anthropic_wire,
    _embeddings,
    _openai_batches,
    _openai_wire,
)
from locoscore.testing._core import Core, Reply, json_reply

_SECRET_HEADER_WORDS = ("authorization", "api-key", "apikey", "token", "secret", "cookie")
REDACTED = "REDACTED"

Route = Callable[["_Handler", re.Match[str], Any, bytes], Reply]


def _anthropic_routes() -> list[tuple[str, str, Route]]:
    a, ab = _anthropic_wire, _anthropic_batches
    return [
        ("POST", r"/v1/messages", lambda h, m, b, r: a.handle_message(h.core, b, h.lower_headers)),
        (
            "POST",
            r"/v1/messages/batches",
            lambda h, m, b, r: ab.create_batch(h.core, b, h.lower_headers, h.base_url),
        ),
        ("GET", r"/v1/messages/batches", lambda h, m, b, r: ab.list_batches(h.core, h.base_url)),
        (
            "GET",
            r"/v1/messages/batches/(?P<id>[\w-]+)",
            lambda h, m, b, r: ab.retrieve_batch(h.core, m["id"], h.base_url),
        ),
        (
            "GET",
            r"/v1/messages/batches/(?P<id>[\w-]+)/results",
            lambda h, m, b, r: ab.batch_results(h.core, m["id"]),
        ),
        (
            "POST",
            r"/v1/messages/batches/(?P<id>[\w-]+)/cancel",
            lambda h, m, b, r: ab.cancel_batch(h.core, m["id"], h.base_url),
        ),
    ]


def _openai_routes() -> list[tuple[str, str, Route]]:
    o, ob = _openai_wire, _openai_batches
    return [
        ("POST", r"/v1/chat/completions", lambda h, m, b, r: o.handle_chat_completion(h.core, b)),
        ("POST", r"/v1/embeddings", lambda h, m, b, r: _embeddings.handle_embeddings(h.core, b)),
        (
            "POST",
            r"/v1/files",
            lambda h, m, b, r: ob.upload_file(h.core, r, h.lower_headers.get("content-type", "")),
        ),
        ("GET", r"/v1/files/(?P<id>[\w-]+)", lambda h, m, b, r: ob.retrieve_file(h.core, m["id"])),
        (
            "GET",
            r"/v1/files/(?P<id>[\w-]+)/content",
            lambda h, m, b, r: ob.file_content(h.core, m["id"]),
        ),
        ("POST", r"/v1/batches", lambda h, m, b, r: ob.create_batch(h.core, b)),
        (
            "GET",
            r"/v1/batches/(?P<id>[\w-]+)",
            lambda h, m, b, r: ob.retrieve_batch(h.core, m["id"]),
        ),
    ]


_ROUTES = [
    (method, re.compile(pattern + r"/?"), handler)
    for method, pattern, handler in _anthropic_routes() + _openai_routes()
]


def redact_headers(headers: dict[str, str]) -> dict[str, str]:
    """Lower-cased headers with every credential replaced by REDACTED."""
    return {
        name: REDACTED if any(word in name for word in _SECRET_HEADER_WORDS) else value
        for name, value in headers.items()
    }


def fake_http_server(address: tuple[str, int], core: Core) -> OwnedHTTPServer[Core]:
    return OwnedHTTPServer(address, _Handler, core)


class _Handler(TrackingHandler):
    server: OwnedHTTPServer[Core]
    lower_headers: dict[str, str]

    @property
    def core(self) -> Core:
        return self.server.owner

    @property
    def base_url(self) -> str:
        host = self.headers.get("host") or "{}:{}".format(*self.server.server_address[:2])
        return f"http://{host}"

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                chunk = self.rfile.read(size + 2)[:size]
                if size == 0:
                    break
                chunks.append(chunk)
            return b"".join(chunks)
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _serve(self, method: str) -> None:
        raw = self._read_body()
        path = self.path.split("?", 1)[0]
        self.lower_headers = {k.lower(): v for k, v in self.headers.items()}
        if path == "/_fake/stats":
            self._send(json_reply(self.core.stats()), entry=None)
            return
        body: Any = None
        if raw and "json" in self.lower_headers.get("content-type", "json"):
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
        entry: dict[str, Any] = {
            "method": method,
            "path": path,
            "headers": redact_headers(self.lower_headers),
            "body": body,
        }
        self.core.record_request(entry)
        self.core.enter()
        try:
            try:
                reply = self._route(method, path, body, raw)
            except Exception:  # a bug in the fake must show as a 500, not a hung client
                traceback.print_exc(file=sys.stderr)
                reply = json_reply({"error": {"message": "fake provider crashed"}}, status=500)
            self._send(reply, entry)
        finally:
            self.core.leave()

    def _route(self, method: str, path: str, body: Any, raw: bytes) -> Reply:
        anthropic_path = path.startswith("/v1/messages")
        if not any(name in self.lower_headers for name in ("x-api-key", "authorization")):
            message = "no API key: send x-api-key or Authorization: Bearer (any value)"
            if anthropic_path:
                return _anthropic_wire.error_reply(401, "authentication_error", message)
            return _openai_wire.error_reply(401, message, "invalid_request_error")
        if raw and body is None and path != "/v1/files":
            message = "request body is not valid JSON"
            if anthropic_path:
                return _anthropic_wire.error_reply(400, "invalid_request_error", message)
            return _openai_wire.error_reply(400, message, "invalid_request_error")
        known_path = False
        for route_method, pattern, handler in _ROUTES:
            match = pattern.fullmatch(path)
            if match is None:
                continue
            known_path = True
            if route_method == method:
                return handler(self, match, body, raw)
        status = 405 if known_path else 404
        return json_reply({"error": {"message": f"{method} {path} is not served"}}, status)

    def _send(self, reply: Reply, entry: dict[str, Any] | None) -> None:
        if reply.hang_s > 0 and not self._wait_while_client_waits(reply.hang_s):
            reply = Reply(drop=True)
        if reply.drop:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        # Counted before the last write, so a client that has read its response always
        # sees it counted; taken back if the write fails.
        if entry is not None:
            entry["status"] = reply.status
            self.core.record_sent(reply.status, reply.generations)
        try:
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type)
            self.send_header("content-length", str(len(reply.body)))
            # The fake says what it is on every response: results made with it say `fake`.
            self.send_header(FAKE_HEADER, "1")
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(reply.body)
        except OSError:
            self.close_connection = True
            if entry is not None:
                self.core.record_sent(reply.status, -reply.generations, undo=True)

    def _wait_while_client_waits(self, seconds: float) -> bool:
        """Hang for a timeout fault; False as soon as the client hangs up or we stop."""
        deadline = time.monotonic() + seconds
        while not self.core.stop_event.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            readable, _, _ = select.select([self.connection], [], [], min(0.05, left))
            if readable:
                try:
                    if self.connection.recv(1, socket.MSG_PEEK) == b"":
                        return False
                except OSError:
                    return False
                self.core.sleep(min(0.05, left))  # pipelined bytes: keep hanging
        return False
