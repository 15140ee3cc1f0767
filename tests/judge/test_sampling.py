"""What sampling can be sent, per provider, model and API version; the signature says it."""

from __future__ import annotations

import pytest

from locoscore.judge import JudgeSettings, SamplingNotSupported, resolve_sampling


def test_seed_default_sends_temperature_under_the_older_api_version() -> None:
    plan = resolve_sampling("anthropic", "claude-sonnet-4-6", 0.5)
    assert (plan.temperature, plan.api_version) == (0.5, "2023-06-01")
    assert plan.signature == "temp:0.5|api:2023-06-01"


def test_current_api_version_with_temperature_stops_naming_the_choices() -> None:
    with pytest.raises(SamplingNotSupported, match="--sampling default") as info:
        resolve_sampling("anthropic", "claude-sonnet-4-6", 0.5, api_version="2026-10-21")
    assert "omit --api-version" in str(info.value)


def test_model_that_rejects_temperature_everywhere_stops() -> None:
    with pytest.raises(SamplingNotSupported, match="claude-opus-4-7 rejects temperature"):
        resolve_sampling("anthropic", "claude-opus-4-7", 0.5)


def test_model_default_sampling_is_recorded_as_such() -> None:
    plan = resolve_sampling("anthropic", "claude-opus-4-7", 0.5, use_model_default=True)
    assert plan.temperature is None
    assert plan.signature == "temp:model-default|api:2026-10-21"


def test_openai_reasoning_model_takes_no_temperature() -> None:
    with pytest.raises(SamplingNotSupported):
        resolve_sampling("openai", "o3-mini", 0.0)
    assert resolve_sampling("openai", "gpt-4o-mini", 0.0).signature == "temp:0"


def test_binary_protocol_defaults_to_temperature_zero() -> None:
    judge = JudgeSettings(protocol="binary").resolve()
    assert judge.sampling.temperature == 0.0
    assert "judge:binary|" in judge.signature and "|temp:0|" in judge.signature


def test_signature_records_what_is_applied() -> None:
    judge = JudgeSettings().resolve()
    assert judge.signature.startswith(
        f"judge:rubric|prompt:{judge.prompt_hash}|provider:anthropic|model:claude-sonnet-4-6"
        "|temp:0.5|api:2023-06-01|max_tokens:256|runs:10|adv:no"
    )
