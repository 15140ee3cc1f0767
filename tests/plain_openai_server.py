"""A tiny OpenAI-wire chat server that is *not* locoscore's fake provider: no fake mark, its
own model name in every reply (as llama.cpp names the model it loaded), a judge verdict
when a response format is asked for, else a short free-text answer."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # a run opens many connections at once


class PlainOpenAIServer:
    def __init__(self, served_model: str = "smollm2-135m") -> None:
        self.served_model = served_model
        self.calls = 0
        self.models_asked: list[str] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    # e.g. the answer step's self-description probes (Ollama's /api/show)
                    self.send_response(404)
                    self.send_header("content-length", "0")
                    self.end_headers()
                    return
                with outer._lock:
                    outer.calls += 1
                    outer.models_asked.append(body["model"])
                if body.get("response_format"):
                    text = json.dumps({"score": 80, "label": "CORRECT", "explanation": "ok"})
                else:
                    text = "in May 2023"
                payload = {
                    "id": "chatcmpl-plain",
                    "object": "chat.completion",
                    "created": 0,
                    "model": outer.served_model,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
                }
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
