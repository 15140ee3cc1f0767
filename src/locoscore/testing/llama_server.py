"""A stand-in llama.cpp server: what a small local model behind `llama-server` (or
llama-cpp-python's server) does that the fake provider does not.

    with LlamaServer(LlamaConfig(slots=1, n_ctx=8192)) as server:
        openai.OpenAI(base_url=server.openai_url, api_key="x")

- `slots` requests are served at once, each taking `service_s`; the rest wait in the
  server's queue (FIFO). A client that hangs up while queued is dropped unserved
  ("disconnected from client before llm invoked"), counted in `abandoned`.
- `n_ctx` tokens per slot: a prompt of `n_ctx` tokens or more gets llama.cpp's HTTP 400
  ("the request exceeds the available context size"), or with
  `overflow_style="llama-cpp-python"` its "maximum context length is N tokens" wording.
- `response_format` `json_schema` is answered with the HTTP 500 llama-cpp-python sends
  ("Input should be 'text' or 'json_object'") unless `json_schema=True`.
- `n` (choices per request): llama.cpp runs each choice on a slot and refuses `n` above
  its slots with HTTP 400 ("Field 'n': Value must be between 1 <= value <= 1, but got 10");
  a request for `n` choices waits for `n` free slots. `max_n` sets another limit (a server
  that takes `n = 10`); `flavour="vllm"` takes any `n` unless `max_n` is set (then refused
  in words that name no limit); Ollama and llama-cpp-python ignore `n` (one choice).
  `choices` counts the choices answered, `refused_n` the requests refused for their `n`.
- Replies carry no `usage` unless `usage=True` (llama-server sends it: the prompt's and the
  reply's tokens), the server's own `model` name whatever was asked, and are cut
  at `max_tokens` (finish_reason "length"); `timings` (llama.cpp's prompt/predicted ms)
  when `timings=True`.
- `GET /props` (`total_slots`, `default_generation_settings.n_ctx`), `GET /slots`,
  `GET /v1/models`, and `POST /tokenize` (`tokenize=True`) as llama.cpp serves them; with
  `flavour="vllm"` the model list carries `max_model_len` and `/tokenize` vLLM's
  `{"count"}` instead (no /props), with `flavour="ollama"` the model list is Ollama's and
  `POST /api/show` reports `llama.context_length` (no /props, no /tokenize); with
  `flavour="llama-cpp-python"` the model list says `owned_by: "me"` and there is no /props
  or /tokenize (that server answers one request at a time: `slots=1`).

Tokens are the stand-in's own (words and punctuation marks, plus `TEMPLATE_TOKENS` for
the chat template), so a client counting with tiktoken must leave a margin.

Replies. A prompt with a `Reply with JSON: {...}` line (a judge prompt) is answered like a
small model would: the keys in the order that line shows them, a verdict from
`config.verdict(prompt)` ("CORRECT"/"WRONG" or a score, 0.5 say) and a long explanation, so a
reply cut at `max_tokens` keeps only the fields written first. Any other prompt gets
`config.answer(prompt)`.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Self

from locoscore._http_server import BackgroundServer, ServedInBackground
from locoscore.testing._llama_http import TOKEN_PATTERN, llama_http_server, tokenize

TEMPLATE_TOKENS = 8  # the chat template's tokens around one user message
_REPLY_KEYS = re.compile(r"Reply with JSON: \{(.*)\}\s*$", re.MULTILINE)
_KEY = re.compile(r'"(\w+)"\s*:')
RAMBLE = (
    "The candidate answer and the reference answer are compared carefully here, "
    "weighing every detail of wording, timing and substance, and the reasoning goes on "
    "for a while as small models tend to do before they reach the point, repeating "
    "itself and adding remarks that change nothing in the end."
)


def _default_answer(prompt: str) -> str:
    return "Not mentioned in the conversation"


def _default_verdict(prompt: str) -> str | float:
    return "CORRECT"


@dataclass
class LlamaConfig:
    slots: int = 1
    n_ctx: int = 8192  # per slot, as /props reports it
    service_s: float = 0.0  # time one request holds a slot
    slow_requests: int = 0  # the first N requests served hold their slot `slow_s` instead
    slow_s: float = 0.0
    model: str = "smollm2-135m"
    json_schema: bool = False  # llama-cpp-python 0.3 rejects it with a 500
    overflow_style: str = "llama.cpp"  # or "llama-cpp-python"
    tokenize: bool = True
    timings: bool = True
    # `usage` in every reply, as llama-server sends it (False: none, as a server that
    # reports no usage; the shipped default, which the local-count tests rely on)
    usage: bool = False
    props: bool = True  # /props and /slots served (a non-llama.cpp server has neither)
    # or "vllm", "ollama", "llama-cpp-python": what the server says about itself
    flavour: str = "llama.cpp"
    # The model list's `owned_by` (None: the flavour's own); a proxy in front of the server
    # (LiteLLM, a gateway) may rewrite it, e.g. to "openai".
    owned_by: str | None = None
    max_n: int | None = None  # choices a request may ask for (None: the flavour's limit)
    answer: Callable[[str], str] = _default_answer
    verdict: Callable[[str], str | float] = _default_verdict
    explanation: str = RAMBLE


@dataclass
class _State:
    lock: threading.Lock = field(default_factory=threading.Lock)
    slot_free: threading.Condition = field(init=False)
    busy: int = 0
    queue: list[int] = field(default_factory=list)  # tickets in arrival order
    next_ticket: int = 0
    completions: int = 0  # chat completions answered 200
    started: int = 0  # chat completions that got their slots
    choices: int = 0  # choices in those answers (a request with `n` gets several)
    refused_n: int = 0  # requests refused for asking more choices than the server allows
    in_flight: int = 0  # chat requests received and not yet answered (queued or served)
    peak_in_flight: int = 0
    abandoned: int = 0  # clients that hung up before their request got a slot
    peak_busy: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    formats: list[str] = field(default_factory=list)  # response_format type per request
    max_tokens: list[int | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.slot_free = threading.Condition(self.lock)


class LlamaServer(BackgroundServer):
    """The stand-in, served from a daemon thread on 127.0.0.1 and a random port."""

    def __init__(self, config: LlamaConfig | None = None) -> None:
        self.config = config or LlamaConfig()
        self.state = _State()
        self.stopping = threading.Event()
        self._running: ServedInBackground | None = None

    def start(self) -> Self:
        self._running = ServedInBackground(
            llama_http_server(("127.0.0.1", 0), self), "llama-stand-in"
        )
        return self

    def stop(self) -> None:
        running, self._running = self._running, None
        if running is None:
            return
        self.stopping.set()
        with self.state.lock:
            self.state.slot_free.notify_all()
        running.stop()

    @property
    def url(self) -> str:
        assert self._running is not None, "the stand-in is not running"
        return f"http://127.0.0.1:{self._running.server.server_address[1]}"

    @property
    def openai_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def llama(self) -> bool:
        return self.config.flavour == "llama.cpp"

    @property
    def n_limit(self) -> int | None:
        """The most choices a request may ask for (None: any; ignored ones count as any)."""
        if self.config.max_n is not None:
            return self.config.max_n
        return min(self.config.slots, 128) if self.llama else None

    @property
    def ignores_n(self) -> bool:
        return self.config.flavour in ("ollama", "llama-cpp-python")

    def choices_asked(self, body: dict[str, Any]) -> int:
        n = body.get("n")
        return n if isinstance(n, int) and n >= 1 and not self.ignores_n else 1

    def n_error(self, n: int) -> tuple[int, dict[str, Any]] | None:
        """llama.cpp's refusal of `n` above its slots (another server's when `max_n` is set
        on another flavour: words that name no limit), or None when `n` is taken."""
        limit = self.n_limit
        if limit is None or n <= limit:
            return None
        if self.llama:
            message = f"Field 'n': Value must be between 1 <= value <= {limit}, but got {n}"
            error = {"code": 400, "message": message, "type": "invalid_request_error"}
            return 400, {"error": error}
        message = "Invalid value for 'n': this server does not return several choices."
        return 400, {"error": {"message": message, "type": "invalid_request_error", "param": "n"}}

    @property
    def completions(self) -> int:
        return self.state.completions

    @property
    def abandoned(self) -> int:
        return self.state.abandoned

    # -- what the routes answer ----------------------------------------------------------

    def props(self) -> dict[str, Any]:
        c = self.config
        return {
            "default_generation_settings": {"n_ctx": c.n_ctx, "model": c.model},
            "total_slots": c.slots,
            "model_path": f"/models/{c.model}.gguf",
        }

    def slots(self) -> list[dict[str, Any]]:
        busy = self.state.busy
        return [
            {"id": i, "n_ctx": self.config.n_ctx, "is_processing": i < busy}
            for i in range(self.config.slots)
        ]

    def models(self) -> dict[str, Any]:
        owners = {"vllm": "vllm", "ollama": "library", "llama-cpp-python": "me"}
        owner = self.config.owned_by or owners.get(self.config.flavour, "llamacpp")
        model: dict[str, Any] = {"id": self.config.model, "object": "model", "owned_by": owner}
        if self.config.flavour == "vllm":
            model["max_model_len"] = self.config.n_ctx
        return {"object": "list", "data": [model]}

    def overflow_error(self, n_prompt: int) -> tuple[int, dict[str, Any]]:
        n_ctx = self.config.n_ctx
        if self.config.overflow_style == "llama-cpp-python":
            message = (
                f"This model's maximum context length is {n_ctx} tokens. However, you "
                f"requested {n_prompt} tokens ({n_prompt} in the messages, 0 in the "
                "completion). Please reduce the length of the messages or completion."
            )
            return 400, {"error": {"message": message, "type": "invalid_request_error"}}
        message = "the request exceeds the available context size, try increasing it"
        error = {
            "code": 400,
            "message": message,
            "type": "exceed_context_size_error",
            "n_prompt_tokens": n_prompt,
            "n_ctx": n_ctx,
        }
        return 400, {"error": error}

    def reply_text(self, prompt: str) -> str:
        keys = _REPLY_KEYS.search(prompt)
        if keys is None:
            return self.config.answer(prompt)
        verdict = self.config.verdict(prompt)
        out = []
        for key in _KEY.findall(keys.group(1)):
            if key == "label":
                out.append(f'"label": "{verdict if isinstance(verdict, str) else "WRONG"}"')
            elif key == "score":
                # a float too: a small model may answer off the scale it was asked for
                score = verdict if isinstance(verdict, int | float) else 100
                out.append(f'"score": {score}')
            else:
                out.append(f'"{key}": {json.dumps(self.config.explanation)}')
        return "{" + ", ".join(out) + "}"

    def complete(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """One chat completion once a slot is held: a reply, or an error."""
        c = self.config
        fmt = (body.get("response_format") or {}).get("type", "text")
        self.state.formats.append(fmt)
        self.state.max_tokens.append(body.get("max_tokens"))
        if fmt == "json_schema" and not c.json_schema:
            message = (
                "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n"
                "  Input should be 'text' or 'json_object' [type=literal_error, "
                "input_value='json_schema', input_type=str]"
            )
            return 500, {"error": {"message": message, "type": "internal_server_error"}}
        prompt = "\n".join(str(m.get("content") or "") for m in body.get("messages") or [])
        n_prompt = len(tokenize(prompt)) + TEMPLATE_TOKENS
        if n_prompt >= c.n_ctx:
            return self.overflow_error(n_prompt)
        started = time.monotonic()
        with self.state.lock:
            slow = self.state.started < c.slow_requests
            self.state.started += 1
        if (service := c.slow_s if slow else c.service_s) > 0:
            self.stopping.wait(service)
        text = self.reply_text(prompt)
        limit = body.get("max_tokens") or c.n_ctx
        limit = min(int(limit), c.n_ctx - n_prompt)
        finish = "stop"
        words = list(re.finditer(TOKEN_PATTERN, text))
        if len(words) > limit:
            text, finish = text[: words[limit].start()].rstrip(), "length"
        choice = {"message": {"role": "assistant", "content": text}, "finish_reason": finish}
        reply: dict[str, Any] = {
            "id": f"chatcmpl-{self.state.completions}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": c.model,
            "choices": [{"index": i, **choice} for i in range(self.choices_asked(body))],
        }
        if c.timings:
            served_ms = (time.monotonic() - started) * 1000
            reply["timings"] = {
                "prompt_n": n_prompt,
                "prompt_ms": round(served_ms / 4, 3),
                "predicted_n": min(len(words), limit),
                "predicted_ms": round(served_ms * 3 / 4, 3),
            }
        if c.usage:  # llama.cpp's own counts (its tokenizer), in every reply
            predicted = min(len(words), limit) * len(reply["choices"])
            reply["usage"] = {
                "prompt_tokens": n_prompt,
                "completion_tokens": predicted,
                "total_tokens": n_prompt + predicted,
            }
        return 200, reply
