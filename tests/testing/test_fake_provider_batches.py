"""Both batch APIs of the fake provider, end to end through the official SDKs."""

from __future__ import annotations

import io
import json

from fakeprov_helpers import (
    SONNET,
    claude,
    gpt,
    user,
)

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


def test_anthropic_batch_entry_with_temperature_errors_under_the_sdk_default_version(fake):
    client = claude(fake)
    params = {"model": SONNET, "max_tokens": 64, "messages": user("q")}
    requests = [
        {"custom_id": "plain", "params": params},
        {"custom_id": "warm", "params": {**params, "temperature": 0.5}},
    ]
    batch = client.messages.batches.create(requests=requests)
    client.messages.batches.retrieve(batch.id)
    results = {r.custom_id: r.result for r in client.messages.batches.results(batch.id)}
    assert results["plain"].type == "succeeded"
    assert results["warm"].type == "errored"
    assert results["warm"].error.error.type == "invalid_request_error"
    assert "temperature" in results["warm"].error.error.message


def test_openai_batch_expired_line_lands_in_the_error_file(fake):
    fake.config.faults = {"expired": 1.0}
    client = gpt(fake)
    line = {
        "custom_id": "late",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {"model": "gpt-4.1-mini", "messages": user("q")},
    }
    uploaded = client.files.create(
        file=("in.jsonl", io.BytesIO((json.dumps(line) + "\n").encode())), purpose="batch"
    )
    batch = client.batches.create(
        input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
    )
    done = client.batches.retrieve(batch.id)
    assert done.status == "completed" and done.request_counts.failed == 1
    (expired,) = [json.loads(x) for x in client.files.content(done.error_file_id).text.splitlines()]
    assert expired["custom_id"] == "late" and expired["error"]["code"] == "batch_expired"
    assert client.files.content(done.output_file_id).text == ""
    assert fake.generation_calls == 0
