"""Structured-output negotiation: an openai-compatible server that rejects `json_schema` (as
vLLM, Ollama and llama.cpp builds often do) is asked with `json_object`, then with no
response_format; the plain OpenAI provider never downgrades."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from judge_helpers import (
    generation_requests,
    make_records,
    openai_settings,
    score_by_question,
    write_native,
)
from typer.testing import CliRunner

from locoscore.benchmarks.locomo.judge import judge_pass
from locoscore.cli import app
from locoscore.judge.settings import JudgeSettings
from locoscore.llm.pool import MAX_REFUSALS_IN_A_ROW
from locoscore.llm.response_format import rejects_response_format
from locoscore.testing.fake_provider import FakeProvider

runner = CliRunner()


def _compatible(fake: FakeProvider, **overrides: object) -> JudgeSettings:
    return openai_settings(fake, provider="openai-compatible", model="local-judge", **overrides)


def _formats_sent(fake: FakeProvider) -> list[str]:
    kinds = []
    for entry in generation_requests(fake):
        body = entry["body"]
        assert isinstance(body, dict)
        kinds.append(body.get("response_format", {}).get("type", "none"))
    return kinds


def test_fake_server_answers_an_unserved_format_with_a_vllm_style_400(
    fake: FakeProvider,
) -> None:
    import openai

    fake.config.openai_response_formats = ("json_object",)
    client = openai.OpenAI(base_url=fake.openai_url, api_key="x", max_retries=0)
    try:
        client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "hi"}],
            response_format={"type": "json_schema", "json_schema": {"name": "j", "schema": {}}},
        )
    except openai.BadRequestError as exc:
        assert exc.status_code == 400
        assert rejects_response_format(exc.status_code, exc.body)
    else:  # pragma: no cover - the assertion below explains the failure
        raise AssertionError("json_schema was served although the config excludes it")


def test_format_rejection_is_read_from_the_body_whatever_the_status() -> None:
    vllm_old = {"message": "response_format.type\n  Input should be 'text' or 'json_object'"}
    assert rejects_response_format(400, vllm_old)
    assert not rejects_response_format(400, {"error": {"message": "messages: too long"}})
    # llama-cpp-python answers json_schema with a 500, others with a 422
    assert rejects_response_format(500, {"error": {"message": "json_schema unsupported"}})
    assert rejects_response_format(422, vllm_old)
    assert not rejects_response_format(500, {"error": {"message": "CUDA out of memory"}})
    assert not rejects_response_format(429, {"error": {"message": "json_schema unsupported"}})


def test_json_schema_rejected_completes_every_verdict_with_json_object(
    fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.openai_response_formats = ("json_object",)
    fake.config.verdict = score_by_question
    records = make_records(8)
    result = asyncio.run(judge_pass(records, _compatible(fake, runs=2), tmp_path))
    assert result.run is not None and result.summary is not None
    scores = {(r.key, r.run): r.score for r in result.run.rows}
    assert len(scores) == 16 and None not in scores.values()
    assert result.summary["response_format"] == "json_object"
    assert result.summary["calls"]["failed"] == 0 and result.run.stop_reason is None
    sent = _formats_sent(fake)
    # The 400s were only the json_schema requests already in flight when the first rejection
    # arrived (at most the concurrency, 4); every later request asked for json_object. (The
    # server's log is in arrival order, so an in-flight json_schema request may be logged
    # after a resent json_object one: count them, do not assume their order.)
    rejected = sent.count("json_schema")
    assert sent[0] == "json_schema" and 1 <= rejected <= 4
    assert set(sent) == {"json_schema", "json_object"}
    assert fake.status_counts[400] == rejected
    # Same verdict rule, same scores as a server that accepts json_schema.
    expected = {r.key: float(score_by_question(f"Question:\n{r.question}\n")) for r in records}
    assert all(score == expected[key] for (key, _), score in scores.items())
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["judge"]["response_format"] == "json_object"


def test_both_formats_rejected_falls_back_to_no_response_format(
    fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.openai_response_formats = ()
    fake.config.verdict = score_by_question
    # More rejected calls than the five-400s rule allows: the negotiation is not a failure.
    records = make_records(MAX_REFUSALS_IN_A_ROW + 3)
    settings = _compatible(fake, concurrency=1)
    result = asyncio.run(judge_pass(records, settings, tmp_path))
    assert result.run is not None and result.summary is not None
    assert result.run.stop_reason is None
    assert all(r.score is not None for r in result.run.rows)
    assert len(result.run.rows) == len(records)
    assert result.summary["response_format"] == "none"
    # One call at a time: one rejection per mode, then every request sends no format.
    assert _formats_sent(fake) == ["json_schema", "json_object"] + ["none"] * len(records)
    assert result.summary["calls"]["made"] == len(records) + 2


def test_a_server_that_accepts_json_schema_keeps_it(fake: FakeProvider, tmp_path: Path) -> None:
    result = asyncio.run(judge_pass(make_records(3), _compatible(fake), tmp_path))
    assert result.summary is not None and result.summary["response_format"] == "json_schema"
    assert set(_formats_sent(fake)) == {"json_schema"}


def test_plain_openai_never_downgrades_and_its_400s_stop_the_pass(
    fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.openai_response_formats = ("json_object",)
    records = make_records(MAX_REFUSALS_IN_A_ROW + 3)
    result = asyncio.run(judge_pass(records, openai_settings(fake, concurrency=1), tmp_path))
    assert result.run is not None
    assert set(_formats_sent(fake)) == {"json_schema"}
    assert fake.status_counts[400] == MAX_REFUSALS_IN_A_ROW
    assert all(r.score is None for r in result.run.rows)
    assert result.run.stop_reason is not None and "not supported" in result.run.stop_reason
    assert result.run.response_format == "json_schema"


def test_cli_names_the_structured_output_mode(fake: FakeProvider, tmp_path: Path) -> None:
    fake.config.openai_response_formats = ("json_object",)
    predictions = write_native(tmp_path / "p.jsonl", make_records(2))
    args = ["judge", str(predictions), "--out", str(tmp_path / "out"), "--no-progress"]
    args += ["--provider", "openai-compatible", "--model", "local-judge"]
    result = runner.invoke(app, [*args, "--base-url", fake.openai_url, "--runs", "1"])
    assert result.exit_code == 0, result.output
    assert "structured output: json_object" in result.output


def test_the_mode_is_no_part_of_the_cache_key_and_survives_a_cached_rerun(
    fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.openai_response_formats = ("json_object",)
    records = make_records(4)
    asyncio.run(judge_pass(records, _compatible(fake), tmp_path))
    fake.config.openai_response_formats = ("json_schema", "json_object")
    fake.reset_counters()
    rerun = asyncio.run(judge_pass(records, _compatible(fake), tmp_path))
    assert fake.requests == 0
    assert rerun.summary is not None and rerun.summary["calls"]["cached"] == 4
    assert rerun.summary["response_format"] == "json_object"
