"""Which provider errors are retried (one layer, Retry-After honoured) and which stop at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import anthropic
import httpx
import openai
import pytest
from judge_helpers import anthropic_settings, make_records, openai_settings

from locoscore.judge.from_records import judge_items
from locoscore.judge.plan import plan_calls
from locoscore.judge.runner import JudgeRun, Runner
from locoscore.llm.call_errors import classify_error, retry_after_seconds
from locoscore.testing import _anthropic_wire, _openai_wire
from locoscore.testing.fake_provider import FakeProvider


def _status_error(
    sdk: str, status: int, body: dict[str, object], headers: dict[str, str] | None = None
) -> Exception:
    request = httpx.Request("POST", "http://127.0.0.1/v1/messages")
    response = httpx.Response(status, headers=headers or {}, json=body, request=request)
    if sdk == "anthropic":
        return anthropic.APIStatusError("error", response=response, body=body)
    return openai.APIStatusError("error", response=response, body=body)


@pytest.mark.parametrize("sdk", ["anthropic", "openai"])
@pytest.mark.parametrize(
    ("status", "message", "kind", "retryable"),
    [
        (400, "messages: too long", "client_error", False),
        (400, "temperature: not a parameter", "sampling_rejected", False),
        (401, "invalid x-api-key", "auth", False),
        (403, "permission denied", "auth", False),
        (404, "model not found", "not_found", False),
        (429, "Your credit balance is too low", "quota", False),
        (429, "You exceeded your current quota (insufficient_quota)", "quota", False),
        (429, "rate limit exceeded", "rate_limit", True),
        (408, "request timeout", "server", True),
        (500, "internal error", "server", True),
        (503, "unavailable", "server", True),
        (529, "Overloaded", "overloaded", True),
    ],
)
def test_status_codes_are_classified_retryable_or_not(
    sdk: str, status: int, message: str, kind: str, retryable: bool
) -> None:
    error = classify_error(_status_error(sdk, status, {"error": {"message": message}}))
    assert (error.kind, error.retryable, error.status) == (kind, retryable, status)


def test_timeouts_and_connection_errors_are_retryable() -> None:
    request = httpx.Request("POST", "http://127.0.0.1/v1/messages")
    for exc in (
        anthropic.APITimeoutError(request),
        openai.APITimeoutError(request),
        anthropic.APIConnectionError(request=request),
        openai.APIConnectionError(request=request),
        TimeoutError(),
    ):
        assert classify_error(exc).retryable, exc


def test_retry_after_is_read_in_ms_seconds_or_as_a_date() -> None:
    assert retry_after_seconds(httpx.Headers({"retry-after-ms": "1500"})) == 1.5
    assert retry_after_seconds(httpx.Headers({"retry-after": "7"})) == 7.0
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=20), usegmt=True)
    assert 17 <= (retry_after_seconds(httpx.Headers({"retry-after": when})) or 0) <= 20
    assert retry_after_seconds(httpx.Headers({"retry-after": "3600"})) == 60.0  # capped
    assert retry_after_seconds(httpx.Headers({})) is None
    error = classify_error(
        _status_error("anthropic", 429, {"error": {}}, {"retry-after": "2"}),
    )
    assert error.retry_after == 2.0


def _run_one(fake: FakeProvider, settings_factory: Callable[..., object], **kw: object) -> JudgeRun:
    settings = settings_factory(fake, retry_base_delay_s=0.001, **kw)
    judge = settings.resolve()  # type: ignore[attr-defined]
    plan = plan_calls(judge_items(make_records(1)), judge, None)
    return asyncio.run(Runner(judge, None).run(plan))


@pytest.mark.parametrize(
    ("status", "error_type", "message"),
    [
        (400, "invalid_request_error", "prompt is too long"),
        (401, "authentication_error", "invalid x-api-key"),
        (403, "permission_error", "your key may not use this model"),
    ],
)
def test_a_4xx_answer_is_sent_once_and_never_retried(
    fake: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
    status: int,
    error_type: str,
    message: str,
) -> None:
    monkeypatch.setattr(
        _anthropic_wire,
        "handle_message",
        lambda core, body, headers: _anthropic_wire.error_reply(status, error_type, message),
    )
    run = _run_one(fake, anthropic_settings)
    assert fake.requests == 1
    (row,) = run.rows
    assert row.score is None and f"HTTP {status}" in (row.error or "")


def test_quota_exhaustion_is_sent_once_and_never_retried(fake: FakeProvider) -> None:
    fake.config.scores = ["quota"]
    run = _run_one(fake, anthropic_settings)
    assert fake.requests == 1
    assert (run.rows[0].error or "").startswith("quota: HTTP 429")


def test_openai_quota_exhaustion_is_not_retried(
    fake: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        _openai_wire,
        "handle_chat_completion",
        lambda core, body: _openai_wire.error_reply(
            429, "You exceeded your current quota.", "insufficient_quota"
        ),
    )
    run = _run_one(fake, openai_settings)
    assert fake.requests == 1
    assert (run.rows[0].error or "").startswith("quota:")


def test_retry_after_of_a_429_is_waited_out_not_the_default_pause(fake: FakeProvider) -> None:
    # Retry-After 0.4 s: at least that long, and well under the 1 s used when none is given.
    fake.config.scores = ["429", 77]
    fake.config.retry_after_s = 0.4
    started = time.monotonic()
    run = _run_one(fake, anthropic_settings)
    elapsed = time.monotonic() - started
    assert run.rows[0].score == 77.0
    assert 0.4 <= elapsed < 0.95
    assert fake.requests == 2


def test_overloaded_529_and_5xx_are_retried_until_they_succeed(fake: FakeProvider) -> None:
    fake.config.scores = ["529", "500", "503", 64]
    run = _run_one(fake, anthropic_settings)
    assert run.rows[0].score == 64.0
    assert fake.status_counts == {529: 1, 500: 1, 503: 1, 200: 1}


def test_the_same_400_five_times_in_a_row_stops_the_pass(
    fake: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A request shape the API rejects fails every call alike: stop instead of sending 1,540.
    monkeypatch.setattr(
        _anthropic_wire,
        "handle_message",
        lambda core, body, headers: _anthropic_wire.error_reply(
            400, "invalid_request_error", "output_config.format.schema: not supported"
        ),
    )
    settings = anthropic_settings(fake, runs=2, concurrency=1)
    judge = settings.resolve()
    run = asyncio.run(
        Runner(judge, None).run(plan_calls(judge_items(make_records(20)), judge, None))
    )
    assert fake.requests == 5
    assert run.stop_reason is not None and "HTTP 400" in run.stop_reason
    assert len(run.rows) == 40
    assert sum((r.error or "").startswith("not run: ") for r in run.rows) == 35
