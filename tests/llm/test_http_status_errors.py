"""Memory servers' HTTP errors (httpx) go through the providers' classification."""

from __future__ import annotations

import httpx
import pytest

from locoscore.llm.call_errors import classify_error


def _status_error(status: int, text: str, headers: dict[str, str] | None = None) -> Exception:
    request = httpx.Request("POST", "http://127.0.0.1:8400/v1/conversations/c/search")
    response = httpx.Response(status, headers=headers or {}, text=text, request=request)
    return httpx.HTTPStatusError("error", request=request, response=response)


@pytest.mark.parametrize(
    ("status", "kind", "retryable"),
    [
        (400, "client_error", False),
        (401, "auth", False),
        (404, "not_found", False),
        (408, "server", True),
        (429, "rate_limit", True),
        (500, "server", True),
        (502, "server", True),
        (529, "overloaded", True),
    ],
)
def test_statuses_are_classified_as_for_the_providers(status, kind, retryable):
    error = classify_error(_status_error(status, '{"error": {"message": "no"}}'))
    assert (error.kind, error.retryable, error.status) == (kind, retryable, status)


def test_a_400_naming_top_k_is_a_client_error_not_a_sampling_refusal():
    error = classify_error(_status_error(400, "body.top_k: expected an integer >= 1"))
    assert (error.kind, error.fatal) == ("client_error", False)
    assert error.message == "HTTP 400: body.top_k: expected an integer >= 1"


def test_retry_after_of_a_memory_server_429_is_read():
    error = classify_error(_status_error(429, "slow down", {"retry-after": "2.5"}))
    assert error.retry_after == 2.5


def test_timeouts_and_connection_failures_are_retryable():
    request = httpx.Request("GET", "http://127.0.0.1:8400/v1/info")
    timeout = classify_error(httpx.ReadTimeout("timed out", request=request))
    refused = classify_error(httpx.ConnectError("[Errno 111] Connection refused", request=request))
    assert (timeout.kind, timeout.retryable) == ("timeout", True)
    assert (refused.kind, refused.retryable) == ("connection", True)
    assert refused.message == "connection error (ConnectError)"


def test_a_bearer_token_in_an_error_body_is_redacted():
    error = classify_error(_status_error(500, "bad credentials: Bearer abc123secret"))
    assert "abc123secret" not in error.message
    assert error.message == "HTTP 500: bad credentials: Bearer [redacted]"
