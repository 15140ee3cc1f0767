"""The fake provider, exercised only through the official anthropic and openai SDKs."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest

from locoscore.testing import FakeConfig, FakeProvider

SONNET = "claude-sonnet-4-6"
OLD_VERSION = {"anthropic-version": "2023-06-01"}
SECRET = "sk-test-DO-NOT-LOG-7f3a"
PROMPT = "Question: Where did Caroline go?\nGold: Paris\nCandidate: She went to Paris."


def hash_rule(text: str) -> int:
    """The documented default verdict, computed independently of the server."""
    return 40 + int(hashlib.sha256(text.encode()).hexdigest(), 16) % 61


def user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig()) as provider:
        yield provider


def claude(fake: FakeProvider, **kwargs: Any) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=fake.url, api_key=SECRET, max_retries=0, **kwargs)


def gpt(fake: FakeProvider, **kwargs: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=fake.openai_url, api_key=SECRET, max_retries=0, **kwargs)


def ask(client: anthropic.Anthropic, text: str = PROMPT, **kwargs: Any) -> Any:
    params: dict[str, Any] = {"model": SONNET, "max_tokens": 256, "messages": user(text)}
    return client.messages.create(**{**params, **kwargs})


SCORE_SCHEMA = {
    "type": "object",
    "properties": {
        "score": {"type": "integer", "minimum": 0, "maximum": 100},
        "label": {"type": "string", "enum": ["CORRECT", "WRONG"]},
        "explanation": {"type": "string"},
    },
    "required": ["score", "label", "explanation"],
    "additionalProperties": False,
}
SCHEMA_OUTPUT = {"format": {"type": "json_schema", "schema": SCORE_SCHEMA}}


# -- verdicts and structured forms ---------------------------------------------------------


def test_default_verdict_is_the_hash_rule_and_repeats_for_identical_requests(fake):
    client = claude(fake)
    first = json.loads(ask(client).content[0].text)
    second = json.loads(ask(client).content[0].text)
    other = json.loads(ask(client, "Something else entirely").content[0].text)
    assert first["score"] == second["score"] == hash_rule(PROMPT)
    assert other["score"] == hash_rule("Something else entirely")


def test_output_config_json_schema_gets_json_text_satisfying_the_schema(fake):
    reply = ask(claude(fake), output_config=SCHEMA_OUTPUT)
    verdict = json.loads(reply.content[0].text)
    score = hash_rule(PROMPT)
    assert verdict["score"] == score
    assert verdict["label"] == ("CORRECT" if score >= 70 else "WRONG")
    assert isinstance(verdict["explanation"], str) and verdict["explanation"]
    assert reply.stop_reason == "end_turn"


def test_forced_tool_gets_a_tool_use_block_whose_input_satisfies_its_schema(fake):
    tool = {"name": "record_verdict", "description": "Record it.", "input_schema": SCORE_SCHEMA}
    reply = ask(claude(fake), tools=[tool], tool_choice={"type": "tool", "name": "record_verdict"})
    (block,) = reply.content
    assert block.type == "tool_use" and block.name == "record_verdict"
    assert block.input["score"] == hash_rule(PROMPT)
    assert set(block.input) == {"score", "label", "explanation"}
    assert reply.stop_reason == "tool_use"


def test_plain_prompt_gets_score_json_and_a_correct_wrong_prompt_gets_a_label(fake):
    client = claude(fake)
    rubric = json.loads(ask(client).content[0].text)
    assert set(rubric) == {"score", "explanation"}
    binary_prompt = PROMPT + "\nAnswer CORRECT or WRONG."
    binary = json.loads(ask(client, binary_prompt).content[0].text)
    expected = "CORRECT" if hash_rule(binary_prompt) >= 70 else "WRONG"
    assert binary["label"] == expected


def test_scripted_scores_are_served_in_request_order_then_the_rule_resumes(fake):
    fake.config.scores = [70, 72, "WRONG"]
    client = claude(fake)
    served = [json.loads(ask(client).content[0].text)["score"] for _ in range(4)]
    assert served == [70, 72, 0, hash_rule(PROMPT)]


def test_a_fault_name_in_the_script_forces_that_fault(fake):
    fake.config.scores = [55, "500", 66]
    client = claude(fake)
    assert json.loads(ask(client).content[0].text)["score"] == 55
    with pytest.raises(anthropic.InternalServerError):
        ask(client)
    assert json.loads(ask(client).content[0].text)["score"] == 66


def test_verdict_callable_overrides_the_rule_and_sees_the_user_text(fake):
    seen: list[str] = []
    fake.config.verdict = lambda text: seen.append(text) or 42
    assert json.loads(ask(claude(fake)).content[0].text)["score"] == 42
    assert seen == [PROMPT]


def test_usage_reports_tokens_and_the_echoed_model(fake):
    reply = ask(claude(fake), "x" * 400)
    assert reply.usage.input_tokens == 100
    assert reply.usage.output_tokens > 0
    assert reply.model == SONNET and reply.id.startswith("msg_")


def test_async_client_works_concurrently(fake):
    async def run() -> list[int]:
        client = anthropic.AsyncAnthropic(base_url=fake.url, api_key=SECRET, max_retries=0)
        replies = await asyncio.gather(
            *(
                client.messages.create(model=SONNET, max_tokens=64, messages=user(f"q{i}"))
                for i in range(20)
            )
        )
        return [json.loads(r.content[0].text)["score"] for r in replies]

    assert asyncio.run(run()) == [hash_rule(f"q{i}") for i in range(20)]
    assert fake.generation_calls == 20


# -- sampling parameters and prefill ------------------------------------------------------


def test_temperature_is_accepted_under_api_version_2023_06_01(fake):
    client = claude(fake, default_headers=OLD_VERSION)
    reply = ask(client, extra_body={"temperature": 0.5})
    assert json.loads(reply.content[0].text)["score"] == hash_rule(PROMPT)
    (logged,) = fake.requests_log
    assert logged["headers"]["anthropic-version"] == "2023-06-01"
    assert logged["body"]["temperature"] == 0.5


@pytest.mark.parametrize("parameter", ["temperature", "top_p", "top_k"])
def test_any_sampling_parameter_is_a_400_under_the_sdk_default_version(fake, parameter):
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(claude(fake), extra_body={parameter: 1})
    assert caught.value.body["error"]["type"] == "invalid_request_error"
    assert parameter in caught.value.body["error"]["message"]
    assert fake.requests_log[0]["headers"]["anthropic-version"] == "2026-10-21"
    assert fake.generation_calls == 0


@pytest.mark.parametrize("model", ["claude-opus-4-7", "claude-opus-4-8", "claude-sonnet-5-5"])
def test_a_no_temperature_model_rejects_temperature_in_the_old_version_too(fake, model):
    client = claude(fake, default_headers=OLD_VERSION)
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(client, model=model, extra_body={"temperature": 0.5})
    assert "temperature is deprecated for this model" in caught.value.body["error"]["message"]
    assert json.loads(ask(client, model=model).content[0].text)["score"] == hash_rule(PROMPT)


def test_a_4_6_model_rejects_temperature_with_top_p_but_not_alone(fake):
    client = claude(fake, default_headers=OLD_VERSION)
    with pytest.raises(anthropic.BadRequestError):
        ask(client, extra_body={"temperature": 0.5, "top_p": 0.9})
    assert ask(client, extra_body={"top_p": 0.9}).stop_reason == "end_turn"


def test_a_4_6_model_rejects_assistant_prefill_and_an_older_model_accepts_it(fake):
    client = claude(fake)
    prefill = [*user(PROMPT), {"role": "assistant", "content": "{"}]
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(client, messages=prefill)
    assert "prefill" in caught.value.body["error"]["message"]
    assert ask(client, model="claude-haiku-4-5", messages=prefill).stop_reason == "end_turn"


# -- OpenAI chat completions ---------------------------------------------------------------


def test_openai_n_returns_n_choices_and_counts_n_generations(fake):
    reply = gpt(fake).chat.completions.create(
        model="gpt-4.1-mini", messages=user(PROMPT), n=4, temperature=0.5
    )
    assert [c.index for c in reply.choices] == [0, 1, 2, 3]
    assert {json.loads(c.message.content)["score"] for c in reply.choices} == {hash_rule(PROMPT)}
    assert reply.usage.prompt_tokens == len(PROMPT) // 4
    assert fake.generation_calls == 4


def test_openai_json_schema_response_format_fills_the_schema(fake):
    response_format = {"type": "json_schema", "json_schema": {"name": "v", "schema": SCORE_SCHEMA}}
    reply = gpt(fake).chat.completions.create(
        model="gpt-4.1-mini", messages=user(PROMPT), response_format=response_format
    )
    verdict = json.loads(reply.choices[0].message.content)
    assert verdict["score"] == hash_rule(PROMPT) and verdict["label"] in ("CORRECT", "WRONG")


def test_openai_reasoning_model_rejects_a_non_default_temperature(fake):
    with pytest.raises(openai.BadRequestError) as caught:
        gpt(fake).chat.completions.create(model="o3", messages=user(PROMPT), temperature=0.5)
    assert caught.value.body["param"] == "temperature"


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
        ask(claude(fake, timeout=0.2))
    assert time.monotonic() - started < 0.5
    time.sleep(0.9 - (time.monotonic() - started))  # past the hang: it would have answered
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


# -- batches -------------------------------------------------------------------------------


def test_anthropic_message_batch_end_to_end(fake):
    fake.config.batch_ready_after_polls = 3
    fake.config.scores = [80, 30, "expired", "529", 90, *range(50, 65)]
    client = claude(fake)
    requests = [
        {
            "custom_id": f"q{i}",
            "params": {"model": SONNET, "max_tokens": 128, "messages": user(f"question {i}")},
        }
        for i in range(20)
    ]
    batch = client.messages.batches.create(requests=requests)
    assert batch.processing_status == "in_progress" and batch.request_counts.processing == 20
    assert client.messages.batches.retrieve(batch.id).processing_status == "in_progress"
    assert client.messages.batches.retrieve(batch.id).processing_status == "in_progress"
    ended = client.messages.batches.retrieve(batch.id)
    assert ended.processing_status == "ended"
    assert (ended.request_counts.succeeded, ended.request_counts.errored) == (18, 1)
    assert ended.request_counts.expired == 1
    results = list(client.messages.batches.results(batch.id))
    order = [r.custom_id for r in results]
    assert sorted(order, key=lambda c: int(c[1:])) == [r["custom_id"] for r in requests]
    assert order != [r["custom_id"] for r in requests]  # unordered, like the real API
    by_id = {r.custom_id: r.result for r in results}
    assert json.loads(by_id["q0"].message.content[0].text)["score"] == 80
    assert json.loads(by_id["q4"].message.content[0].text)["score"] == 90
    assert by_id["q2"].type == "expired"
    assert by_id["q3"].type == "errored" and by_id["q3"].error.error.type == "overloaded_error"
    assert by_id["q0"].message.usage.service_tier == "batch"
    assert fake.generation_calls == 18


def test_openai_batch_end_to_end(fake):
    fake.config.batch_ready_after_polls = 2
    fake.config.scores = [75, "500", 25]
    client = gpt(fake)
    lines = [
        {
            "custom_id": f"q{i}",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {"model": "gpt-4.1-mini", "messages": user(f"question {i}")},
        }
        for i in range(3)
    ]
    payload = "".join(json.dumps(line) + "\n" for line in lines).encode()
    uploaded = client.files.create(file=("judge.jsonl", io.BytesIO(payload)), purpose="batch")
    assert uploaded.bytes == len(payload) and uploaded.purpose == "batch"
    batch = client.batches.create(
        input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
    )
    assert batch.status == "validating"
    assert client.batches.retrieve(batch.id).status == "in_progress"
    done = client.batches.retrieve(batch.id)
    assert done.status == "completed"
    assert (done.request_counts.total, done.request_counts.completed) == (3, 2)
    assert done.request_counts.failed == 1
    outputs = [json.loads(x) for x in client.files.content(done.output_file_id).text.splitlines()]
    scores = {
        o["custom_id"]: json.loads(o["response"]["body"]["choices"][0]["message"]["content"])
        for o in outputs
    }
    assert scores == {
        "q0": {"score": 75, "explanation": scores["q0"]["explanation"]},
        "q2": {"score": 25, "explanation": scores["q2"]["explanation"]},
    }
    (failed,) = [json.loads(x) for x in client.files.content(done.error_file_id).text.splitlines()]
    assert failed["custom_id"] == "q1" and failed["response"]["status_code"] == 500
    assert fake.generation_calls == 2


# -- bookkeeping ---------------------------------------------------------------------------


def test_api_keys_are_redacted_in_the_requests_log(fake):
    ask(claude(fake))
    gpt(fake).chat.completions.create(model="gpt-4.1-mini", messages=user(PROMPT))
    raw = anthropic.Anthropic(
        base_url=fake.url,
        api_key=None,
        auth_token=None,
        max_retries=0,
        default_headers={"x-api-key": SECRET},
    )
    ask(raw)
    log = fake.requests_log
    assert SECRET not in json.dumps(log)
    assert log[0]["headers"]["authorization"] == "REDACTED"
    assert log[1]["headers"]["authorization"] == "REDACTED"
    assert log[2]["headers"]["x-api-key"] == "REDACTED"


def test_counters_count_requests_statuses_and_generations_and_reset(fake):
    client = claude(fake)
    ask(client)
    with pytest.raises(anthropic.BadRequestError):
        ask(client, extra_body={"temperature": 0.5})
    assert (fake.requests, fake.generation_calls) == (2, 1)
    assert fake.status_counts == {200: 1, 400: 1}
    assert [entry["path"] for entry in fake.requests_log] == ["/v1/messages"] * 2
    fake.reset_counters()
    assert (fake.requests, fake.generation_calls, fake.status_counts) == (0, 0, {})
    assert fake.requests_log == []


def test_command_line_server_prints_its_url_serves_and_stops_on_sigterm():
    env = {**os.environ, "PYTHONWARNINGS": "error"}
    command = [sys.executable, "-m", "locoscore.testing.fake_provider", "--port", "0"]
    process = subprocess.Popen(
        [*command, "--faults", "500=1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode().strip()
        assert line.startswith("listening http://127.0.0.1:")
        url = line.split()[1]
        with pytest.raises(anthropic.InternalServerError):
            anthropic.Anthropic(base_url=url, api_key=SECRET, max_retries=0).messages.create(
                model=SONNET, max_tokens=10, messages=user("hi")
            )
        with urllib.request.urlopen(f"{url}/_fake/stats") as answer:
            stats = json.load(answer)
        assert stats["status_counts"] == {"500": 1} and stats["fault_counts"] == {"500": 1}
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=5) == 0
    assert process.stderr is not None and process.stderr.read() == b""
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"{url}/_fake/stats", timeout=1)
