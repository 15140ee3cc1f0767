"""A fake LLM provider: a real HTTP server on 127.0.0.1 that the official `anthropic` and
`openai` SDKs talk to through `base_url`, for the judge's tests, dry runs and benchmark.

It speaks Anthropic Messages + Message Batches and OpenAI Chat Completions + Files/Batch,
answers with scripted or rule-based verdicts in the structured form each request asks for,
enforces a requests-per-minute limit, adds latency and injects faults from a seeded RNG.

    with FakeProvider(FakeConfig(faults={"529": 0.1})) as fp:
        client = anthropic.Anthropic(base_url=fp.url, api_key="x")

Run as `python -m locoscore.testing.fake_provider --port 0` to serve from another process;
`GET /_fake/stats` then reports the counters as JSON.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import re
import select
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import FrameType, TracebackType
from typing import Any, Self

from locoscore.testing import _anthropic_batches, _anthropic_wire, _openai_batches, _openai_wire
from locoscore.testing._core import Core, FakeConfig, Reply, json_reply
from locoscore.testing._verdicts import FAULT_TYPES, default_score

__all__ = ["FAULT_TYPES", "FakeConfig", "FakeProvider", "default_score", "main"]

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


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 256
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], core: Core) -> None:
        self.core = core
        self.open_connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def close_open_connections(self) -> None:
        with self.connections_lock:
            connections = list(self.open_connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    disable_nagle_algorithm = True
    server: _Server

    @property
    def core(self) -> Core:
        return self.server.core

    @property
    def base_url(self) -> str:
        host = self.headers.get("host") or "{}:{}".format(*self.server.server_address[:2])
        return f"http://{host}"

    def setup(self) -> None:
        super().setup()
        with self.server.connections_lock:
            self.server.open_connections.add(self.connection)

    def finish(self) -> None:
        with self.server.connections_lock:
            self.server.open_connections.discard(self.connection)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: tests and benchmarks read the counters instead."""

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
        try:
            reply = self._route(method, path, body, raw)
        except Exception:  # a bug in the fake must show as a 500, not a hung client
            traceback.print_exc(file=sys.stderr)
            reply = json_reply({"error": {"message": "fake provider crashed"}}, status=500)
        self._send(reply, entry)

    def _route(self, method: str, path: str, body: Any, raw: bytes) -> Reply:
        if raw and body is None and path != "/v1/files":
            message = "request body is not valid JSON"
            if path.startswith("/v1/messages"):
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
        try:
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type)
            self.send_header("content-length", str(len(reply.body)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(reply.body)
        except OSError:
            self.close_connection = True
            return
        if entry is not None:
            entry["status"] = reply.status
            self.core.record_sent(reply.status, reply.generations)

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


class FakeProvider:
    """The fake provider's server, run in a daemon thread on 127.0.0.1 and a random port."""

    def __init__(self, config: FakeConfig | None = None, host: str = "127.0.0.1", port: int = 0):
        self._core = Core(config or FakeConfig())
        self._host, self._port = host, port
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> Self:
        if self._server is None:
            self._core.stop_event.clear()
            self._server = _Server((self._host, self._port), self._core)
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": 0.05},
                name="fake-provider",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        self._core.stop_event.set()
        server.shutdown()
        server.close_open_connections()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def serve_forever(self) -> None:
        """Serve in the calling thread until stop() or a signal (the command-line mode)."""
        self.start()
        if self._thread is not None:
            while self._thread.is_alive():
                self._thread.join(timeout=0.2)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- addresses ------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the fake provider is not running")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """Base URL for the anthropic SDK."""
        return f"http://{self._host}:{self.port}"

    @property
    def openai_url(self) -> str:
        """Base URL for the openai SDK."""
        return f"{self.url}/v1"

    # -- configuration and counters -------------------------------------------------------

    @property
    def config(self) -> FakeConfig:
        return self._core.config

    @config.setter
    def config(self, config: FakeConfig) -> None:
        self._core.config = config

    @property
    def generation_calls(self) -> int:
        return self._core.generation_calls

    @property
    def requests(self) -> int:
        return self._core.requests

    @property
    def status_counts(self) -> collections.Counter[int]:
        with self._core.lock:
            return collections.Counter(self._core.status_counts)

    @property
    def fault_counts(self) -> collections.Counter[str]:
        """How often each fault type was injected (an addition to the status counts)."""
        with self._core.lock:
            return collections.Counter(self._core.fault_counts)

    @property
    def requests_log(self) -> list[dict[str, Any]]:
        with self._core.lock:
            return list(self._core.requests_log)

    def reset_counters(self) -> None:
        self._core.reset_counters()


def _parse_faults(text: str) -> dict[str, float]:
    faults: dict[str, float] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, rate = item.partition("=")
        try:
            faults[name.strip()] = float(rate)
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad fault {item!r}; expected NAME=RATE") from None
    return faults


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m locoscore.testing.fake_provider",
        description="Serve the fake LLM provider until killed.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per generation")
    parser.add_argument("--rpm", type=int, default=None, help="requests-per-minute limit")
    parser.add_argument("--rpm-window", type=float, default=60.0, help="window of --rpm, s")
    parser.add_argument(
        "--faults", type=_parse_faults, default={}, help="e.g. 429=0.1,500=0.05,timeout=0.01"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=30.0, help="hang of a timeout fault")
    parser.add_argument("--retry-after", type=float, default=1.0, help="of an injected 429")
    parser.add_argument("--batch-ready-after-polls", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        config = FakeConfig(
            latency_s=args.latency,
            rpm_limit=args.rpm,
            rpm_window_s=args.rpm_window,
            faults=args.faults,
            seed=args.seed,
            timeout_s=args.timeout,
            retry_after_s=args.retry_after,
            batch_ready_after_polls=args.batch_ready_after_polls,
        )
    except ValueError as exc:
        parser.error(str(exc))
    provider = FakeProvider(config, host=args.host, port=args.port)

    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    provider.start()
    print(f"listening {provider.url}", flush=True)
    try:
        provider.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        provider.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
