"""The fake provider's rate limit and injected faults, as the official SDKs see them."""

from __future__ import annotations

import json
import time

import anthropic
import openai
import pytest
from fakeprov_helpers import (
    PROMPT,
    SCHEMA_OUTPUT,
    SECRET,
    ask,
    claude,
    gpt,
    hash_rule,
    user,
)

from locoscore.testing import FakeConfig, FakeProvider

# -- rate limit and faults -----------------------------------------------------------------


def test_injected_429_carries_retry_after_in_seconds_and_milliseconds(fake):
    fake.config.faults = {"429": 1.0}
    fake.config.retry_after_s = 2.5
    with pytest.raises(anthropic.RateLimitError) as caught:
        ask(claude(fake))
    assert caught.value.response.headers["retry-after"] == "3"
    assert caught.value.response.headers["retry-after-ms"] == "2500"
    assert caught.value.body["error"]["type"] == "rate_limit_error"


def test_rpm_limit_answers_429_past_the_limit_until_the_window_moves(fake):
    fake.config.rpm_limit = 3
    client = claude(fake)
    for _ in range(3):
        ask(client)
    with pytest.raises(anthropic.RateLimitError) as caught:
        ask(client)
    headers = caught.value.response.headers
    assert headers["retry-after"] == "60"  # the first slot frees a minute after it was taken
    assert 50_000 < int(headers["retry-after-ms"]) <= 60_000
    fake.config.rpm_window_s = 0.01  # let the minute pass
    time.sleep(0.02)
    assert ask(client).stop_reason == "end_turn"
    assert fake.status_counts == {200: 4, 429: 1}


def test_the_sdk_waits_out_an_rpm_429_and_its_retry_succeeds(fake):
    fake.config.rpm_limit = 1
    fake.config.rpm_window_s = 0.5  # a time-scaled minute
    client = anthropic.Anthropic(base_url=fake.url, api_key=SECRET, max_retries=2)
    started = time.monotonic()
    ask(client)
    ask(client)
    assert time.monotonic() - started >= 0.4
    assert fake.status_counts == {200: 2, 429: 1}
    assert fake.generation_calls == 2


@pytest.mark.parametrize(
    ("fault", "status", "error_type"),
    [("500", 500, "api_error"), ("503", 503, "api_error"), ("529", 529, "overloaded_error")],
)
def test_server_error_faults_answer_their_status_with_anthropic_error_json(
    fake, fault, status, error_type
):
    fake.config.faults = {fault: 1.0}
    with pytest.raises(anthropic.APIStatusError) as caught:
        ask(claude(fake))
    assert caught.value.status_code == status
    assert caught.value.body["type"] == "error"
    assert caught.value.body["error"]["type"] == error_type
    assert fake.fault_counts == {fault: 1}


def test_quota_fault_is_a_429_about_credit_without_retry_after(fake):
    fake.config.faults = {"quota": 1.0}
    with pytest.raises(anthropic.RateLimitError) as caught:
        ask(claude(fake))
    assert "credit balance is too low" in caught.value.body["error"]["message"]
    assert "retry-after" not in caught.value.response.headers


def test_timeout_fault_hangs_past_the_client_timeout_and_serves_nothing(fake):
    fake.config.faults = {"timeout": 1.0}
    fake.config.timeout_s = 0.6
    started = time.monotonic()
    with pytest.raises(anthropic.APITimeoutError):
        ask(claude(fake, timeout=0.2))  # the client gave up: no timing assertion (load-bound)
    time.sleep(
        max(0.0, 0.9 - (time.monotonic() - started))
    )  # past the hang: it would have answered
    assert fake.generation_calls == 0 and sum(fake.status_counts.values()) == 0


def test_timeout_fault_shorter_than_the_client_timeout_still_answers(fake):
    fake.config.faults = {"timeout": 1.0}
    fake.config.timeout_s = 0.2
    assert ask(claude(fake, timeout=5)).stop_reason == "end_turn"


def test_drop_fault_closes_the_connection_without_a_response(fake):
    fake.config.faults = {"drop": 1.0}
    with pytest.raises(anthropic.APIConnectionError):
        ask(claude(fake))
    assert fake.requests == 1 and sum(fake.status_counts.values()) == 0


def test_bad_json_fault_is_prose_that_still_names_the_score(fake):
    fake.config.faults = {"bad_json": 1.0}
    text = ask(claude(fake)).content[0].text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    assert f"Score: {hash_rule(PROMPT)}" in text


def test_empty_fault_has_no_content(fake):
    fake.config.faults = {"empty": 1.0}
    assert ask(claude(fake)).content == []


def test_refusal_fault_stops_with_refusal(fake):
    fake.config.faults = {"refusal": 1.0}
    reply = ask(claude(fake), output_config=SCHEMA_OUTPUT)
    assert reply.stop_reason == "refusal"
    with pytest.raises(json.JSONDecodeError):
        json.loads(reply.content[0].text)


def test_truncation_fault_cuts_the_json_and_stops_at_max_tokens(fake):
    full = ask(claude(fake)).content[0].text
    fake.config.faults = {"truncation": 1.0}
    reply = ask(claude(fake))
    assert reply.stop_reason == "max_tokens"
    assert full.startswith(reply.content[0].text) and len(reply.content[0].text) < len(full)


@pytest.mark.parametrize(
    ("fault", "check"),
    [
        ("refusal", lambda c: c.message.refusal and c.message.content is None),
        ("empty", lambda c: c.message.content == ""),
        ("truncation", lambda c: c.finish_reason == "length"),
        ("bad_json", lambda c: "Score:" in c.message.content),
    ],
)
def test_openai_content_faults(fake, fault, check):
    fake.config.faults = {fault: 1.0}
    reply = gpt(fake).chat.completions.create(model="gpt-4.1-mini", messages=user(PROMPT))
    assert check(reply.choices[0])


def test_openai_error_faults_use_openai_error_json(fake):
    client = gpt(fake)
    fake.config.faults = {"quota": 1.0}
    with pytest.raises(openai.RateLimitError) as caught:
        client.chat.completions.create(model="gpt-4.1-mini", messages=user(PROMPT))
    assert caught.value.code == "insufficient_quota"
    fake.config.faults = {"drop": 1.0}
    with pytest.raises(openai.APIConnectionError):
        client.chat.completions.create(model="gpt-4.1-mini", messages=user(PROMPT))


def test_fault_draws_follow_the_rates_and_repeat_for_the_same_seed():
    def statuses(seed: int) -> list[int]:
        config = FakeConfig(faults={"500": 0.3, "529": 0.2}, seed=seed)
        with FakeProvider(config) as provider:
            client = claude(provider)
            out = []
            for _ in range(100):
                try:
                    ask(client)
                    out.append(200)
                except anthropic.APIStatusError as exc:
                    out.append(exc.status_code)
            return out

    first = statuses(seed=7)
    assert first == statuses(seed=7)
    assert first != statuses(seed=8)
    assert 15 <= first.count(500) <= 45 and 8 <= first.count(529) <= 32


def test_an_unknown_fault_type_is_refused():
    with pytest.raises(ValueError, match="unknown fault"):
        FakeConfig(faults={"418": 0.1})
