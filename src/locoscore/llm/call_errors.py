"""A failed provider call, classified: retryable or not, fatal or not, how long to wait.

Also the one place that scrubs API keys out of provider text before it can reach a file,
a log line or an exception.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

from locoscore.llm.choices import ChoicesRefused
from locoscore.llm.response_format import ResponseFormatDowngraded

API_KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
_KEY_LIKE = re.compile(r"\bsk-[A-Za-z0-9_\-*.]{4,}")
_BEARER = re.compile(r"(?i)\b(bearer\s+)[^\s\"',;]+")
REDACTED = "[redacted]"


# Environment variables whose values are credentials: the providers' keys, and any custom
# variable a system is pointed at (api_key_env=..., token_env=...), by its name.
_SECRET_ENV_NAME = re.compile(r"(?i)(KEY|TOKEN|SECRET|PASSWORD)")


def _secret_values() -> list[str]:
    names = set(API_KEY_ENV.values()) | {n for n in os.environ if _SECRET_ENV_NAME.search(n)}
    values = {os.environ.get(name) or "" for name in names}
    return sorted((v for v in values if len(v) >= 6), key=len, reverse=True)


def redact_secrets(text: str) -> str:
    """Remove credentials from text before it reaches a file, a log or an exception: some
    servers echo the key or token they were sent (whole or masked) in their error bodies."""
    for value in _secret_values():
        text = text.replace(value, REDACTED)
    text = _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
    return _KEY_LIKE.sub(REDACTED, text)


def one_line_error(exc: BaseException) -> str:
    """An exception as one short line (its type unless it is one of locoscore's own, whose
    messages are written to be read), credentials scrubbed: a server may echo a token."""
    from locoscore.errors import LocoscoreError

    lines = str(exc).strip().splitlines()
    message = " ".join(lines[0].split()) if lines else ""
    if not isinstance(exc, LocoscoreError):
        message = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return redact_secrets(message)[:300]


@dataclass(frozen=True)
class CallError:
    """A failed call, classified. `message` never carries request headers (keys)."""

    kind: str
    message: str
    retryable: bool
    fatal: bool = False  # stop scheduling: every further call would fail the same way
    retry_after: float | None = None
    status: int | None = None

    @property
    def pressure(self) -> str | None:
        """ "backpressure" for what a server that queues answers when it is full: a timeout,
        a lost connection, a 503 or an overload."""
        if self.kind in ("timeout", "connection", "overloaded") or self.status == 503:
            return "backpressure"
        return None


_QUOTA_WORDS = ("insufficient_quota", "quota", "credit balance", "billing", "spend limit")
_SAMPLING_WORDS = ("temperature", "top_p", "top_k")
# How servers say a prompt does not fit the model's window (llama.cpp, llama-cpp-python,
# vLLM, OpenAI, Ollama): recognised from the body, whatever the status.
_CONTEXT_WORDS = (
    "exceeds the available context size",
    "maximum context length",
    "context_length_exceeded",
    "exceed_context_size",
    "context window",
    "prompt is too long",
)


def retry_after_seconds(headers: Any) -> float | None:
    """`retry-after-ms` or `retry-after` (seconds or an HTTP date), capped at one minute."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    try:
        if value is not None:
            return min(60.0, max(0.0, float(value) / 1000))
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return min(60.0, max(0.0, float(value)))
        except ValueError:
            return min(60.0, max(0.0, parsedate_to_datetime(value).timestamp() - time.time()))
    except (TypeError, ValueError):
        return None


def classify_status(status: int, body_text: str, headers: Any) -> CallError:
    """An HTTP error status, classified: one policy for the LLM providers and for memory
    servers (`--system http`). `body_text` is redacted here before it is cut, so no half of
    a key survives the cut."""
    body_text = redact_secrets(body_text)[:400]
    detail = f"HTTP {status}: {body_text}" if body_text else f"HTTP {status}"
    wait = retry_after_seconds(headers)
    lowered = body_text.lower()
    if status != 429 and any(word in lowered for word in _CONTEXT_WORDS):
        # The prompt does not fit: the same prompt never will, so no retry and no refusal
        # streak (the next question's prompt may fit).
        return CallError("context_overflow", detail, retryable=False, status=status)
    if status == 429 and any(word in lowered for word in _QUOTA_WORDS):
        return CallError("quota", detail, retryable=False, status=status)
    if status == 429:
        return CallError("rate_limit", detail, retryable=True, retry_after=wait, status=429)
    if status == 529:
        return CallError("overloaded", detail, retryable=True, retry_after=wait, status=529)
    if status in (408, 409) or status >= 500:
        return CallError("server", detail, retryable=True, retry_after=wait, status=status)
    if status in (401, 403):
        return CallError("auth", detail, retryable=False, fatal=True, status=status)
    if status == 404:
        return CallError("not_found", detail, retryable=False, fatal=True, status=status)
    return CallError("client_error", detail, retryable=False, status=status)


def classify_error(exc: BaseException) -> CallError:
    import anthropic
    import httpx
    import openai

    if isinstance(exc, ResponseFormatDowngraded):
        return CallError("response_format_downgraded", str(exc), retryable=True)
    if isinstance(exc, ChoicesRefused):
        # A negotiation, not a refusal of the runs: the caller sends them again in smaller
        # requests (no retry here, no refusal streak).
        return CallError("n_refused", str(exc), retryable=False, status=400)
    timeouts = (TimeoutError, anthropic.APITimeoutError, openai.APITimeoutError)
    if isinstance(exc, (*timeouts, httpx.TimeoutException)):
        return CallError("timeout", "request timed out", retryable=True)
    if isinstance(exc, anthropic.APIConnectionError | openai.APIConnectionError):
        return CallError("connection", "connection error", retryable=True)
    if isinstance(exc, httpx.TransportError):  # a memory server's connection failed
        return CallError("connection", f"connection error ({type(exc).__name__})", retryable=True)
    if isinstance(exc, httpx.HTTPStatusError):  # a memory server's error status
        response = exc.response
        return classify_status(response.status_code, response.text, response.headers)
    if isinstance(exc, anthropic.APIStatusError | openai.APIStatusError):
        status = exc.status_code
        body_text = json.dumps(exc.body, default=str) if exc.body is not None else ""
        if status == 400 and any(word in body_text.lower() for word in _SAMPLING_WORDS):
            detail = f"HTTP {status}: {redact_secrets(body_text)[:400]}"
            return CallError(
                "sampling_rejected",
                f"the provider refused the sampling parameters ({detail}); choices: "
                f"--sampling default (the model's own sampling), another --api-version, "
                f"or a model that accepts temperature",
                retryable=False,
                fatal=True,
                status=status,
            )
        return classify_status(status, body_text, exc.response.headers)
    text = redact_secrets(str(exc))[:300]
    return CallError("error", f"{type(exc).__name__}: {text}", retryable=False)
