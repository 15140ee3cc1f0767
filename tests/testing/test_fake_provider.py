"""The fake provider through the official SDKs: verdicts in each structured form, sampling
parameters per API version and model, OpenAI choices, bookkeeping and the command line."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import anthropic
import openai
import pytest
from fakeprov_helpers import (
    OLD_VERSION,
    OUTPUT_SCHEMA,
    PROMPT,
    SCHEMA_OUTPUT,
    SCORE_SCHEMA,
    SECRET,
    SONNET,
    ask,
    claude,
    gpt,
    hash_rule,
    user,
)

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


@pytest.mark.parametrize(
    ("constraint", "kind"),
    [({"minimum": 0}, "integer"), ({"maximum": 100}, "integer"), ({"maxLength": 9}, "string")],
)
def test_output_config_schema_with_a_bound_is_refused_like_the_real_api(fake, constraint, kind):
    field = "score" if kind == "integer" else "explanation"
    properties = {**OUTPUT_SCHEMA["properties"], field: {"type": kind, **constraint}}
    schema = {**OUTPUT_SCHEMA, "properties": properties}
    output_config = {"format": {"type": "json_schema", "schema": schema}}
    with pytest.raises(anthropic.BadRequestError) as info:
        ask(claude(fake), output_config=output_config)
    (keyword,) = constraint
    assert f"For '{kind}' type, property '{keyword}' is not supported" in str(info.value)
    assert fake.generation_calls == 0


def test_the_judges_own_schemas_pass_the_structured_output_check() -> None:
    from locoscore.judge.prompts import output_schema
    from locoscore.testing._anthropic_wire import unsupported_schema_keyword

    assert unsupported_schema_keyword(output_schema("rubric")) is None
    assert unsupported_schema_keyword(output_schema("binary")) is None


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


def test_a_request_without_any_api_key_is_a_401_and_any_key_is_accepted(fake):
    body = json.dumps({"model": SONNET, "max_tokens": 10, "messages": user("hi")}).encode()
    headers = {"content-type": "application/json", "anthropic-version": "2023-06-01"}
    request = urllib.request.Request(f"{fake.url}/v1/messages", body, headers)
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request)
    assert caught.value.code == 401
    assert json.load(caught.value)["error"]["type"] == "authentication_error"
    request.add_header("x-api-key", "anything")
    with urllib.request.urlopen(request) as answer:
        assert json.load(answer)["type"] == "message"


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
