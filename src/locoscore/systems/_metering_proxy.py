"""A metering proxy in front of an OpenAI-compatible endpoint, for a memory server that makes
its model calls itself (the Letta server), so locoscore cannot wrap its client.

The server is pointed at `PROXY/t/TAG/llm` (and `.../emb` for its embedder) instead of the
configured base URLs; the proxy forwards each request to the real base URL with the real key
(read from the user's environment: the memory server never holds it), relays the reply
unchanged, and adds the `usage` of every successful chat completion or embeddings reply to
TAG's tally (`_usage_meter.Tally`). One tag per conversation: the server's calls are
attributed by the agent that made them, whatever runs concurrently.
"""

from __future__ import annotations

import threading

import httpx

from locoscore._http_server import ServedInBackground, TrackingHandler, TrackingHTTPServer
from locoscore.systems._usage_meter import Tally

_HOP_HEADERS = {"host", "content-length", "authorization", "connection", "accept-encoding"}
BILLED = ("/chat/completions", "/embeddings")


class MeteringProxy:
    """`start()`, then `base_url(tag, "llm" | "emb")`; `drain(tag)` takes TAG's counts."""

    def __init__(self, upstreams: dict[str, str], api_key: str, timeout_s: float) -> None:
        self.upstreams = {kind: url.rstrip("/") for kind, url in upstreams.items()}
        self._key = api_key
        self._client = httpx.Client(timeout=timeout_s)
        self._tallies: dict[str, Tally] = {}
        self._lock = threading.Lock()
        self._server: TrackingHTTPServer | None = None
        self._running: ServedInBackground | None = None

    def start(self) -> MeteringProxy:
        proxy = self

        class Handler(TrackingHandler):
            def do_POST(self) -> None:
                proxy._forward(self, "POST")

            def do_GET(self) -> None:
                proxy._forward(self, "GET")

        self._server = TrackingHTTPServer(("127.0.0.1", 0), Handler)
        self._running = ServedInBackground(self._server, "locoscore-metering-proxy")
        return self

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the metering proxy is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def base_url(self, tag: str, kind: str) -> str:
        return f"{self.url}/t/{tag}/{kind}"

    def drain(self, tag: str) -> Tally:
        """What TAG's calls spent since the last drain."""
        with self._lock:
            tally = self._tallies.pop(tag, None)
        return tally or Tally()

    def stop(self) -> None:
        running, self._running, self._server = self._running, None, None
        if running is not None:
            running.stop()
        self._client.close()

    def _forward(self, handler: TrackingHandler, method: str) -> None:
        parts = handler.path.split("/", 4)  # "", "t", TAG, KIND, REST
        if len(parts) < 5 or parts[1] != "t" or parts[3] not in self.upstreams:
            handler.send_error(404, "not a metered path")
            return
        tag, kind, rest = parts[2], parts[3], parts[4]
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length) if length else b""
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in _HOP_HEADERS}
        headers["authorization"] = f"Bearer {self._key}"
        target = f"{self.upstreams[kind]}/{rest}"
        try:
            reply = self._client.request(method, target, content=body, headers=headers)
        except httpx.HTTPError as exc:
            handler.send_error(502, f"upstream unreachable ({type(exc).__name__})")
            return
        if reply.status_code == 200 and target.split("?", 1)[0].endswith(BILLED):
            self._record(tag, "/" + rest.split("?", 1)[0], reply)
        handler.send_response(reply.status_code)
        for key, value in reply.headers.items():
            if key.lower() not in ("content-length", "transfer-encoding", "connection",
                                   "content-encoding"):  # fmt: skip
                handler.send_header(key, value)
        handler.send_header("content-length", str(len(reply.content)))
        handler.end_headers()
        handler.wfile.write(reply.content)

    def _record(self, tag: str, path: str, reply: httpx.Response) -> None:
        try:
            payload = reply.json()
        except ValueError:
            return
        if not isinstance(payload, dict):
            return
        with self._lock:
            tally = self._tallies.setdefault(tag, Tally())
            tally.add_response(path, payload)
