"""Provider trouble: every fault type at once loses no judgment; a 429 storm only slows."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from judge_helpers import anthropic_settings, make_records, openai_settings

from locoscore.benchmarks.locomo.judge import judge_pass
from locoscore.benchmarks.locomo.judge.from_records import judge_items
from locoscore.judge.plan import plan_calls
from locoscore.judge.runner import Runner
from locoscore.testing.fake_provider import FakeProvider

LIVE_FAULTS = {
    "429": 0.04,
    "500": 0.04,
    "503": 0.04,
    "529": 0.04,
    "timeout": 0.01,
    "drop": 0.04,
    "bad_json": 0.04,
    "empty": 0.04,
    "refusal": 0.04,
    "truncation": 0.04,
    "quota": 0.02,
}
# Errors a run may end with: content the judge cannot read, a refusal, exhausted quota.
FINAL_ERRORS = ("empty reply", "refused by the provider", "quota:", "unparseable reply")


def _storm(fake: FakeProvider, tmp_path: Path, settings_factory) -> None:  # type: ignore[no-untyped-def]
    fake.config.faults = dict(LIVE_FAULTS)
    fake.config.retry_after_s = 0.01
    fake.config.timeout_s = 3.0
    questions, runs = 40, 4
    settings = settings_factory(
        fake, runs=runs, concurrency=8, timeout_s=0.3, retry_base_delay_s=0.01
    )
    result = asyncio.run(judge_pass(make_records(questions), settings, tmp_path))
    assert result.run is not None and result.run.stop_reason is None
    rows = [json.loads(x) for x in (tmp_path / "judgments.jsonl").read_text().splitlines()]
    # every (question, run) ends exactly once, as a score or a recorded failure
    assert sorted((r["key"], r["run"]) for r in rows) == sorted(
        (rec.key, run) for rec in make_records(questions) for run in range(runs)
    )
    for row in rows:
        assert (row["score"] is None) == (row["error"] is not None)
        if row["error"] is not None:
            assert row["error"].startswith(FINAL_ERRORS), row["error"]
    failed = sum(r["score"] is None for r in rows)
    summary = result.summary
    assert summary is not None and summary["calls"]["failed"] == failed
    scores_rows = [json.loads(x) for x in (tmp_path / "scores.jsonl").read_text().splitlines()]
    assert sum(r["j_failures"] for r in scores_rows) == failed
    assert failed < len(rows) * 0.25  # transient faults were retried, not given up on


def test_every_fault_type_anthropic_run_completes_with_no_judgment_lost(
    fake: FakeProvider, tmp_path: Path
) -> None:
    _storm(fake, tmp_path, anthropic_settings)
    injected = fake.fault_counts
    assert set(injected) == set(LIVE_FAULTS), injected  # each fault really happened


def test_every_fault_type_openai_run_completes_with_no_judgment_lost(
    fake: FakeProvider, tmp_path: Path
) -> None:
    _storm(fake, tmp_path, lambda f, **kw: openai_settings(f, n_per_request=1, **kw))
    assert len(fake.fault_counts) >= 8


def test_a_429_storm_slows_the_run_and_shrinks_concurrency_but_loses_nothing(
    fake: FakeProvider, tmp_path: Path
) -> None:
    # 20 requests per 0.5 s window = 40/s; 100 calls need at least ~2 s
    fake.config.rpm_limit = 20
    fake.config.rpm_window_s = 0.5
    fake.config.latency_s = 0.01
    settings = anthropic_settings(
        fake, runs=4, concurrency=32, retry_base_delay_s=0.01, max_attempts=30
    )
    judge = settings.resolve()
    plan = plan_calls(judge_items(make_records(25)), judge, None)
    runner = Runner(judge, None, initial_concurrency=32)
    started = time.monotonic()
    run = asyncio.run(runner.run(plan))
    elapsed = time.monotonic() - started
    assert all(r.score is not None for r in run.rows) and len(run.rows) == 100
    assert fake.status_counts[429] > 0
    assert runner.limiter.rate_limited == fake.status_counts[429]
    # cut (x0.8 per episode) at least once; where it ends depends on how long the healthy
    # tail ran (it grows back), so only the cut is a property of the storm
    assert runner.limiter.shrinks > 0
    assert elapsed >= 100 / 40 - 0.6  # paced by the limit (first window starts full)
    assert fake.generation_calls == 100


def test_non_retryable_errors_are_not_retried(fake: FakeProvider) -> None:
    # 404: unknown path -> the provider answers not found; one request, a fatal stop
    settings = anthropic_settings(fake, base_url=fake.url + "/nowhere", runs=2, concurrency=1)
    judge = settings.resolve()
    plan = plan_calls(judge_items(make_records(3)), judge, None)
    run = asyncio.run(Runner(judge, None).run(plan))
    assert fake.requests == 1
    assert run.stop_reason is not None and "404" in run.stop_reason
    assert all(r.score is None for r in run.rows) and len(run.rows) == 6
