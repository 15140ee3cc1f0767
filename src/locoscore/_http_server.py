"""The threaded HTTP/1.1 server under `locoscore serve` and the fake provider: keep-alive
connections tracked so stopping can close them, and clients that hang up treated as routine;
the stand-ins a `with` block runs (`BackgroundServer`)."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

Owner = TypeVar("Owner")


class TrackingHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 256  # a run or a bench opens many connections at once
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        self.open_connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up mid-request (a timeout, a killed run) is routine: no trace."""
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)

    def close_open_connections(self) -> None:
        with self.connections_lock:
            connections = list(self.open_connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)


class OwnedHTTPServer(TrackingHTTPServer, Generic[Owner]):
    """A TrackingHTTPServer whose handlers reach what answers through it (`owner`)."""

    def __init__(
        self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], owner: Owner
    ) -> None:
        self.owner = owner
        super().__init__(address, handler)


class TrackingHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: clients reuse their connections
    disable_nagle_algorithm = True
    server: TrackingHTTPServer

    def setup(self) -> None:
        super().setup()
        with self.server.connections_lock:
            self.server.open_connections.add(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: request lines would only repeat what the client records (and the
        stand-ins' tests read their counters)."""

    def finish(self) -> None:
        with self.server.connections_lock:
            self.server.open_connections.discard(self.connection)
        with contextlib.suppress(OSError):
            super().finish()


class ServedInBackground:
    """A TrackingHTTPServer on a daemon thread: started, then stopped with every open
    connection closed and the thread joined (the fake provider and the llama.cpp stand-in)."""

    def __init__(self, server: TrackingHTTPServer, name: str) -> None:
        self.server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name=name, daemon=True
        )
        self._thread.start()

    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout=timeout)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.close_open_connections()
        self.server.server_close()
        self._thread.join(timeout=5)


class BackgroundServer:
    """A server a `with` block runs: started on entry, stopped on exit (the fake provider,
    the llama.cpp stand-in). A subclass gives `start` (returning itself) and `stop`."""

    def start(self) -> Self:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
