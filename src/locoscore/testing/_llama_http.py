"""The stand-in llama.cpp server's HTTP side: routes, slots held FIFO, clients that hang up
(`locoscore.testing.llama_server` says what each route answers)."""

from __future__ import annotations

import json
import re
import select
import socket
from typing import Any

from locoscore._http_server import OwnedHTTPServer, TrackingHandler

TOKEN_PATTERN = re.compile(r"\w+|[^\w\s]")


def tokenize(text: str) -> list[str]:
    """The stand-in's tokens: words and punctuation marks."""
    return TOKEN_PATTERN.findall(text)


def llama_http_server(address: tuple[str, int], owner: Any) -> OwnedHTTPServer[Any]:
    """`owner` is the LlamaServer that starts it, typed loosely so this module imports
    nothing back."""
    return OwnedHTTPServer(address, _Handler, owner)


class _Handler(TrackingHandler):
    server: OwnedHTTPServer[Any]

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode("utf-8")
        with self.server.owner.state.lock:
            statuses = self.server.owner.state.statuses
            statuses[status] = statuses.get(status, 0) + 1
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        owner, path = self.server.owner, self.path.split("?", 1)[0].rstrip("/")
        if path == "/v1/models":
            self._send(200, owner.models())
        elif path in ("/props", "/slots") and owner.config.props and owner.llama:
            self._send(200, owner.props() if path == "/props" else owner.slots())
        elif path == "/health":
            self._send(200, {"status": "ok"})
        else:
            self._send(404, {"error": {"code": 404, "message": "File Not Found"}})

    def do_POST(self) -> None:
        owner, path = self.server.owner, self.path.split("?", 1)[0].rstrip("/")
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._send(400, {"error": {"code": 400, "message": "invalid JSON"}})
            return
        flavour = owner.config.flavour
        if path == "/tokenize" and owner.config.tokenize and flavour in ("llama.cpp", "vllm"):
            text = str(body.get("prompt" if flavour == "vllm" else "content", ""))
            tokens = list(range(len(tokenize(text))))
            self._send(
                200,
                {"count": len(tokens), "tokens": tokens}
                if flavour == "vllm"
                else {"tokens": tokens},
            )
        elif path == "/api/show" and flavour == "ollama":
            info = {"general.architecture": "llama", "llama.context_length": owner.config.n_ctx}
            self._send(200, {"model_info": info, "details": {"family": "llama"}})
        elif path == "/v1/chat/completions":
            self._chat(body)
        else:
            self._send(404, {"error": {"code": 404, "message": "File Not Found"}})

    def _chat(self, body: dict[str, Any]) -> None:
        owner = self.server.owner
        state = owner.state
        n = owner.choices_asked(body)
        refused = owner.n_error(n)
        if refused is not None:  # checked as the request is read, before any slot
            with state.lock:
                state.refused_n += 1
            self._send(*refused)
            return
        with state.lock:
            state.in_flight += 1
            state.peak_in_flight = max(state.peak_in_flight, state.in_flight)
        try:
            self._serve(body, n)
        finally:
            with state.lock:
                state.in_flight -= 1

    def _serve(self, body: dict[str, Any], n: int) -> None:
        owner = self.server.owner
        state = owner.state
        # a server taking more choices than it has slots runs them in turn
        hold = min(n, owner.config.slots)
        if not self._wait_for_slot(hold):
            return
        try:
            status, reply = owner.complete(body)
        finally:
            with state.lock:
                state.busy -= hold
                state.slot_free.notify_all()
        with state.lock:
            if status == 200:
                state.completions += 1
                state.choices += len(reply["choices"])
        self._send(status, reply)

    def _wait_for_slot(self, n: int = 1) -> bool:
        """Queue (FIFO) until `n` slots are free (one per choice); False when the client hung
        up meanwhile."""
        owner = self.server.owner
        state = owner.state
        with state.lock:
            ticket = state.next_ticket
            state.next_ticket += 1
            state.queue.append(ticket)
            while not owner.stopping.is_set():
                if state.queue[0] == ticket and state.busy + n <= owner.config.slots:
                    state.queue.pop(0)
                    state.busy += n
                    state.peak_busy = max(state.peak_busy, state.busy)
                    state.slot_free.notify_all()
                    return True
                state.slot_free.wait(0.05)
                if self._client_gone():
                    state.queue.remove(ticket)
                    state.abandoned += 1
                    state.slot_free.notify_all()
                    self.close_connection = True
                    return False
            state.queue.remove(ticket)
            return False

    def _client_gone(self) -> bool:
        readable, _, _ = select.select([self.connection], [], [], 0)
        if not readable:
            return False
        try:
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True
