"""Batch mode end to end against the fake provider: Anthropic Message Batches, OpenAI Batch."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from judge_helpers import anthropic_settings, make_records, openai_settings, score_by_question

from locoscore.benchmarks.locomo.judge import judge_pass
from locoscore.judge.cache import JudgeStore
from locoscore.results.layout import JUDGE_CACHE
from locoscore.testing.fake_provider import FakeProvider

QUESTIONS, RUNS = 6, 3
BATCH_PATHS = {"anthropic": "/v1/messages/batches", "openai": "/v1/batches"}


def _settings(provider: str, fake: FakeProvider, **kw: object):  # type: ignore[no-untyped-def]
    factory = anthropic_settings if provider == "anthropic" else openai_settings
    return factory(fake, runs=RUNS, **kw)


def _batch_creations(fake: FakeProvider, provider: str) -> int:
    return sum(
        1 for e in fake.requests_log if e["path"] == BATCH_PATHS[provider] and e["method"] == "POST"
    )


def _pass(provider: str, fake: FakeProvider, out: Path, **kw: object):  # type: ignore[no-untyped-def]
    return asyncio.run(
        judge_pass(
            make_records(QUESTIONS),
            _settings(provider, fake),
            out,
            batch=True,
            poll_interval_s=0.01,
            **kw,  # type: ignore[arg-type]
        )
    )


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_batch_pass_matches_a_live_pass_and_reruns_from_cache(
    fake: FakeProvider, tmp_path: Path, provider: str
) -> None:
    fake.config.verdict = score_by_question
    fake.config.batch_ready_after_polls = 3
    batched = _pass(provider, fake, tmp_path / "batch")
    assert batched.summary is not None
    assert _batch_creations(fake, provider) == 1
    assert fake.generation_calls == QUESTIONS * RUNS
    assert batched.summary["calls"]["made"] == QUESTIONS * RUNS
    with JudgeStore(tmp_path / "batch" / JUDGE_CACHE) as store:
        assert store.count() == QUESTIONS * RUNS
    live = asyncio.run(
        judge_pass(make_records(QUESTIONS), _settings(provider, fake), tmp_path / "live")
    )
    assert live.summary is not None
    for part in ("by_category", "overall", "run_level", "signature"):
        assert batched.summary[part] == live.summary[part]
    fake.reset_counters()
    again = _pass(provider, fake, tmp_path / "batch")
    assert fake.requests == 0 and again.summary is not None
    assert again.summary["overall"] == batched.summary["overall"]


def test_anthropic_batch_entries_carry_cache_keys_and_the_applied_sampling(
    fake: FakeProvider, tmp_path: Path
) -> None:
    _pass("anthropic", fake, tmp_path)
    (create,) = [
        e
        for e in fake.requests_log
        if e["path"] == "/v1/messages/batches" and e["method"] == "POST"
    ]
    requests = create["body"]["requests"]
    assert len(requests) == QUESTIONS * RUNS
    assert len({r["custom_id"] for r in requests}) == QUESTIONS * RUNS
    assert all(len(r["custom_id"]) == 64 for r in requests)
    assert all(r["params"]["temperature"] == 0.5 for r in requests)
    assert all(r["params"]["max_tokens"] == 256 for r in requests)
    assert create["headers"]["anthropic-version"] == "2023-06-01"


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_pending_batch_is_resumed_after_a_restart_not_resubmitted(
    fake: FakeProvider, tmp_path: Path, provider: str
) -> None:
    fake.config.batch_ready_after_polls = 1000
    first = _pass(provider, fake, tmp_path, max_wait_s=0.05)
    assert first.run is not None and first.run.pending_batch is not None
    assert not (tmp_path / "summary.json").exists()  # nothing written while pending
    with JudgeStore(tmp_path / JUDGE_CACHE) as store:
        (pending,) = store.pending_batches(first.judge.provider, first.judge.model)
    assert pending.batch_id == first.run.pending_batch
    fake.config.batch_ready_after_polls = 1
    second = _pass(provider, fake, tmp_path)
    assert _batch_creations(fake, provider) == 1  # the same batch, collected
    assert second.summary is not None
    assert second.summary["overall"]["count"] == QUESTIONS
    assert second.summary["calls"]["failed"] == 0
    with JudgeStore(tmp_path / JUDGE_CACHE) as store:
        assert store.pending_batches(first.judge.provider, first.judge.model) == []
        assert store.count() == QUESTIONS * RUNS


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_expired_entries_are_failures_and_only_they_are_resubmitted(
    fake: FakeProvider, tmp_path: Path, provider: str
) -> None:
    fake.config.faults = {"expired": 0.3}
    first = _pass(provider, fake, tmp_path)
    assert first.summary is not None
    failed = first.summary["calls"]["failed"]
    assert 0 < failed < QUESTIONS * RUNS
    fake.config.faults = {}
    fake.reset_counters()
    second = _pass(provider, fake, tmp_path)
    assert second.summary is not None and second.summary["calls"]["failed"] == 0
    assert fake.generation_calls == failed
    assert second.summary["calls"]["cached"] == QUESTIONS * RUNS - failed


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_max_cost_submits_only_what_fits_and_records_the_rest_as_not_run(
    fake: FakeProvider, tmp_path: Path, provider: str
) -> None:
    from locoscore.judge import PriceTable

    # $1 per million input tokens at batch price 0.5: a ~200-token prompt is ~$0.0001.
    prices = PriceTable({"claude-sonnet-4-6": (1.0, 0.0), "gpt-4o-mini": (1.0, 0.0)})
    settings = _settings(provider, fake, max_cost_usd=0.0005, prices=prices)
    result = asyncio.run(
        judge_pass(make_records(QUESTIONS), settings, tmp_path, batch=True, poll_interval_s=0.01)
    )
    assert result.run is not None and result.summary is not None
    assert "--max-cost 0.0005 USD would be exceeded" in (result.run.stop_reason or "")
    calls = result.summary["calls"]
    assert 0 < calls["made"] < QUESTIONS * RUNS
    assert calls["made"] + calls["skipped"] == QUESTIONS * RUNS
    assert fake.generation_calls == calls["made"]  # only the affordable entries were sent
    assert result.summary["usage"]["estimated_cost_usd"] <= 0.0005 * 1.2
    skipped = [r for r in result.run.rows if r.score is None]
    assert all((r.error or "").startswith("not run: --max-cost") for r in skipped)


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_pending_batch_the_provider_no_longer_knows_is_dropped_and_resubmitted(
    fake: FakeProvider, tmp_path: Path, provider: str
) -> None:
    fake.config.batch_ready_after_polls = 1000
    first = _pass(provider, fake, tmp_path, max_wait_s=0.05)
    assert first.run is not None and first.run.pending_batch is not None
    # The provider forgets it (deleted, expired long ago, or another account's key).
    fake._core.anthropic_batches.clear()
    fake._core.openai_batches.clear()
    fake.config.batch_ready_after_polls = 1
    lost = _pass(provider, fake, tmp_path)
    assert lost.summary is not None and lost.summary["calls"]["failed"] == QUESTIONS * RUNS
    assert all("unknown to the provider" in (r.error or "") for r in lost.run.rows)  # type: ignore[union-attr]
    again = _pass(provider, fake, tmp_path)
    assert again.summary is not None and again.summary["calls"]["failed"] == 0
    assert _batch_creations(fake, provider) == 2  # resubmitted once, not stuck
