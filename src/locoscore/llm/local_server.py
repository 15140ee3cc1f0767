"""What an openai-compatible server says about itself, asked once before the first call.

llama.cpp's `llama-server` reports its slots (requests served at once; the rest queue) and
its context window per slot at `GET /props` (or `GET /slots`), and counts tokens with its
own tokenizer at `POST /tokenize`; vLLM reports `max_model_len` in `GET /v1/models` and
tokenizes at `POST /tokenize`; Ollama reports the model's `*.context_length` at
`POST /api/show`. Every probe is optional: a server that answers none of them is simply
unknown (a small concurrency start, tiktoken counts with a margin). llama-cpp-python's server
says `owned_by: "me"` and serves one request at a time: one slot.

Counting. With the server's tokenizer the count is exact up to the chat template, for which
`CHAT_TEMPLATE_TOKENS` are added; with tiktoken's cl100k (another model's tokenizer) the
count is raised by `TIKTOKEN_MARGIN` as well.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

CHAT_TEMPLATE_TOKENS = 32  # role markers and the template around one user message
TIKTOKEN_MARGIN = 0.10  # cl100k against an unknown model's tokenizer
PROBE_TIMEOUT_S = 5.0
# Calls in flight to start with against a compatible server that does not say how many it
# serves at once; the limiter grows it while nothing queues.
SMALL_START = 4


def server_root(base_url: str) -> str:
    """`http://host:8080/v1` -> `http://host:8080` (llama.cpp and Ollama serve at the root)."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


@dataclass(frozen=True)
class ServerFacts:
    """What the server reported; None where it said nothing."""

    kind: str | None = None  # llama.cpp | llama-cpp-python | vllm | ollama
    slots: int | None = None
    context_window: int | None = None
    window_source: str | None = None  # where the window came from, for the messages
    tokenize: str | None = None  # "llama.cpp" or "vllm": the server's /tokenize dialect
    root: str | None = None
    models: tuple[str, ...] = ()  # the ids its model list names (a pool checks them)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "slots": self.slots,
            "context_window": self.context_window,
            "context_window_source": self.window_source,
            "tokenizer": self.tokenizer_name,
        }

    @property
    def tokenizer_name(self) -> str:
        if self.tokenize is not None:
            return f"server /tokenize (+{CHAT_TEMPLATE_TOKENS} template tokens)"
        margin = round(TIKTOKEN_MARGIN * 100)
        return f"tiktoken cl100k +{margin}% (+{CHAT_TEMPLATE_TOKENS} template tokens)"


_OLLAMA_OWNERS = ("library", "ollama")
LLAMA_CPP_PYTHON_OWNER = "me"  # what llama-cpp-python's server says owns every model


def _get(client: Any, url: str, json_body: Any = None) -> Any:
    try:
        response = client.post(url, json=json_body) if json_body is not None else client.get(url)
        return response.json() if response.status_code == 200 else None
    except Exception:  # a server that does not answer a probe is merely unknown
        return None


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def discover(base_url: str, model: str, api_key: str | None = None) -> ServerFacts:
    """What the server says about itself (`_discover`), with the models it lists."""
    from dataclasses import replace

    facts, listed = _discover(base_url, model, api_key)
    return replace(facts, models=listed)


def serves(facts: ServerFacts | None, model: str) -> str | None:
    """The model a server serves for `model`: it, when listed (or nothing is listed), else
    the first it lists (llama.cpp serves its one model under any name)."""
    if facts is None or not facts.models or model in facts.models:
        return model
    return facts.models[0]


def _discover(
    base_url: str, model: str, api_key: str | None = None
) -> tuple[ServerFacts, tuple[str, ...]]:
    """Ask the server at `base_url` (an OpenAI `/v1` base) what it is and can do: its model
    list first (every compatible server has one; its `owned_by` names llama.cpp and Ollama,
    vLLM adds `max_model_len`), then that server's own endpoints; a server the list does not
    identify is asked llama.cpp's and Ollama's."""
    import httpx

    root = server_root(base_url)
    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    with httpx.Client(timeout=PROBE_TIMEOUT_S, headers=headers) as client:
        models = _get(client, f"{base_url.rstrip('/')}/models")
        entries = models.get("data") if isinstance(models, dict) else None
        entries = [e for e in entries or [] if isinstance(e, dict)]
        listed = tuple(str(e["id"]) for e in entries if isinstance(e.get("id"), str))
        entry = next((e for e in entries if e.get("id") == model), entries[0] if entries else {})
        owner = str(entry.get("owned_by") or "")
        if _positive(entry.get("max_model_len")) is not None:
            tok = _get(client, f"{root}/tokenize", {"model": model, "prompt": "a"})
            dialect = "vllm" if isinstance(tok, dict) and "count" in tok else None
            window = entry["max_model_len"]
            return ServerFacts(
                "vllm", None, window, "/v1/models max_model_len", dialect, root
            ), listed
        if owner == LLAMA_CPP_PYTHON_OWNER:
            # llama-cpp-python's server: one request at a time (a lock around the model),
            # no /props, /tokenize or window to ask.
            return ServerFacts("llama-cpp-python", 1, None, None, None, root), listed
        # An owner the list does not name as one of ours (a proxy may rewrite `owned_by`,
        # or the server has no list) leaves the server unidentified: every probe is asked.
        ollama = owner in _OLLAMA_OWNERS
        known = ollama or owner == "llamacpp"
        if not ollama:
            facts = _llama(client, root)
            if facts is not None:
                return facts, listed
        if ollama or not known:
            show = _get(client, f"{root}/api/show", {"model": model})
            info = show.get("model_info") if isinstance(show, dict) else None
            for key, value in (info or {}).items():
                if key.endswith(".context_length") and _positive(value):
                    return ServerFacts("ollama", None, value, "/api/show", None, root), listed
    return ServerFacts(root=root), listed


def _llama(client: Any, root: str) -> ServerFacts | None:
    props = _get(client, f"{root}/props")
    if isinstance(props, dict) and "total_slots" in props:
        settings = props.get("default_generation_settings")
        n_ctx = _positive(settings.get("n_ctx")) if isinstance(settings, dict) else None
        slots, where = _positive(props.get("total_slots")), "/props"
    else:
        listed = _get(client, f"{root}/slots")  # older builds, or --slots with no /props
        if not (isinstance(listed, list) and listed and isinstance(listed[0], dict)):
            return None
        slots, n_ctx, where = len(listed), _positive(listed[0].get("n_ctx")), "/slots"
    tok = _get(client, f"{root}/tokenize", {"content": "a"})
    dialect = "llama.cpp" if isinstance(tok, dict) and "tokens" in tok else None
    return ServerFacts("llama.cpp", slots, n_ctx, f"{where} n_ctx", dialect, root)


def concurrency_plan(
    provider: str,
    facts: ServerFacts | None,
    most: int,
    default_start: int | None,
    choices: int = 1,
) -> tuple[int | None, int, str]:
    """(start, most, why) for the calls in flight: a compatible server's slots and one call
    more (ready in its queue when a slot frees: beyond that a llama.cpp server only queues),
    else a small start that adapts. A request of `choices` (`n`) holds that many slots."""
    if provider != "openai-compatible":
        return default_start, most, "default"
    if facts is not None and facts.slots:
        if choices > 1:
            start = min(most, -(-facts.slots // choices) + 1)
            why = f"server slots: {facts.slots} ({facts.kind}), {choices} runs a request"
            return start, start, f"{why}, + 1 queued"
        start = min(most, facts.slots + 1)
        return start, start, f"server slots: {facts.slots} ({facts.kind}) + 1 queued"
    return min(most, SMALL_START), most, "small start (the server names no slots)"


def count_usage_locally(prompt: str, replies: list[Any]) -> list[Any]:
    """Replies (`providers.Reply`) with tokens counted here, for a server that reports no
    usage (llama.cpp): tiktoken cl100k over the prompt (charged to the first reply: the
    request is billed once) and over each reply's text."""
    from dataclasses import replace

    from locoscore.tokens import count_tokens

    return [
        replace(r, input_tokens=count_tokens(prompt) if i == 0 else 0,
                output_tokens=count_tokens(r.text))
        for i, r in enumerate(replies)
    ]  # fmt: skip


class PromptCounter:
    """Prompt tokens as the server will count them (or an estimate on the safe side)."""

    def __init__(self, facts: ServerFacts, model: str) -> None:
        self.facts = facts
        self.model = model
        self._client: Any = None

    def count(self, text: str) -> int:
        if self.facts.tokenize is not None and self.facts.root is not None:
            counted = self._server_count(text)
            if counted is not None:
                return counted + CHAT_TEMPLATE_TOKENS
        from locoscore.tokens import count_tokens

        return math.ceil(count_tokens(text) * (1 + TIKTOKEN_MARGIN)) + CHAT_TEMPLATE_TOKENS

    def _server_count(self, text: str) -> int | None:
        import httpx

        if self._client is None:
            self._client = httpx.Client(timeout=PROBE_TIMEOUT_S * 6)
        if self.facts.tokenize == "vllm":
            body = {"model": self.model, "prompt": text}
            data = _get(self._client, f"{self.facts.root}/tokenize", body)
            return _positive((data or {}).get("count")) if isinstance(data, dict) else None
        data = _get(self._client, f"{self.facts.root}/tokenize", {"content": text})
        tokens = data.get("tokens") if isinstance(data, dict) else None
        return len(tokens) if isinstance(tokens, list) else None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
