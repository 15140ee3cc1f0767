"""A memory server that misbehaves on cue: each request of an action (`info`, `reset`,
`sessions`, `search`, `answer`) takes the next fault of its script, then `after` (default
`ok`: answered by the real reference server `backend`, through its request handler).

Faults: `500`, `400`, `429:SECONDS` (Retry-After), `html_503` (a proxy's HTML error page),
`not_json` (200 with HTML), `wrong_shape` (200, a JSON object without the contract's
fields), `bad_item` (200, an item without text), `hang:SECONDS` (no answer for that long,
then the connection closes), `old_contract` (info naming another contract version),
`other_system` (info of a bm25 with other options), `echo_auth` (500 whose body repeats the
Authorization header it received).
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from locoscore._http_server import BackgroundServer
from locoscore.systems.serve import MemoryServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def _serve(self, method: str) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = self.path.split("?", 1)[0]
        action = "info" if path.endswith("/info") else path.rstrip("/").rsplit("/", 1)[-1]
        owner = self.server.owner
        fault = owner.next_fault(action)
        authorization = self.headers.get("authorization")
        status, body, headers = 200, b"", {"content-type": "application/json"}
        if fault.startswith("hang:"):
            time.sleep(float(fault.split(":")[1]))
            self.close_connection = True
            return
        if fault == "ok":
            reply = owner.backend.handle(method, path, authorization, raw)
            status, body = reply.status, json.dumps(reply.body).encode()
        elif fault in ("500", "400"):
            message = {"error": {"message": "scripted failure", "type": "server_error"}}
            status, body = int(fault), json.dumps(message).encode()
        elif fault.startswith("429:"):
            status, body = 429, b'{"error": {"message": "slow down", "type": "rate_limited"}}'
            headers["retry-after"] = fault.split(":")[1]
        elif fault == "html_503":
            status, body = 503, b"<html><body>503 Service Unavailable</body></html>"
            headers["content-type"] = "text/html"
        elif fault == "not_json":
            body = b"<html><body>It works!</body></html>"
            headers["content-type"] = "text/html"
        elif fault == "wrong_shape":
            body = b'{"results": [], "ok": true}'
        elif fault == "bad_item":
            body = b'{"items": [{"score": 1.5, "dia_ids": ["D1:1"]}]}'
        elif fault == "other_system":
            body = b'{"contract": "locoscore-memory/1", "system": "bm25", "options": {"k1": "9"}}'
        elif fault == "old_contract":
            body = b'{"contract": "locoscore-memory/0", "system": "bm25"}'
        elif fault == "echo_auth":
            text = f"upstream refused credentials {authorization}, raw token {owner.secret}"
            status, body = 500, json.dumps({"error": {"message": text}}).encode()
        else:
            raise AssertionError(f"unknown fault {fault}")
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128
    owner: FaultServer


class FaultServer(BackgroundServer):
    def __init__(
        self,
        backend: MemoryServer,
        script: dict[str, list[str]] | None = None,
        after: dict[str, str] | None = None,
        secret: str = "",
    ) -> None:
        self.backend = backend
        self.script = {action: list(faults) for action, faults in (script or {}).items()}
        self.after = after or {}
        self.secret = secret  # what `echo_auth` repeats besides the header
        self.requests: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self

    def next_fault(self, action: str) -> str:
        with self._lock:
            self.requests[action] += 1
            queue = self.script.get(action)
            if queue:
                return queue.pop(0)
            return self.after.get(action, "ok")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> Self:
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
