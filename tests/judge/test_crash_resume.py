"""Crash and resume: `locoscore judge` killed with SIGKILL mid-run, then rerun."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from judge_helpers import make_records, score_by_question, write_native

from locoscore.benchmarks.locomo.judge import judge_pass
from locoscore.judge import JudgeSettings
from locoscore.testing.fake_provider import FakeProvider

QUESTIONS, RUNS, CONCURRENCY = 24, 5, 4
NEEDED = QUESTIONS * RUNS


def _command(fake: FakeProvider, predictions: Path, out: Path) -> list[str]:
    script = Path(sys.executable).parent / "locoscore"
    return [
        str(script),
        "judge",
        str(predictions),
        "--out",
        str(out),
        "--base-url",
        fake.url,
        "--runs",
        str(RUNS),
        "--concurrency",
        str(CONCURRENCY),
        "--no-progress",
    ]


def _message_requests(fake: FakeProvider) -> int:
    return sum(1 for e in fake.requests_log if e["path"] == "/v1/messages")


def _j_numbers(out: Path) -> dict[str, object]:
    judge = json.loads((out / "summary.json").read_text())["judge"]
    return {k: judge[k] for k in ("by_category", "overall", "run_level", "signature")}


def test_sigkill_mid_run_then_rerun_matches_an_uninterrupted_run(
    fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.latency_s = 0.03
    fake.config.verdict = score_by_question  # equal questions, equal verdicts
    predictions = write_native(tmp_path / "p.jsonl", make_records(QUESTIONS))

    crashed = tmp_path / "crashed"
    process = subprocess.Popen(
        _command(fake, predictions, crashed), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 30
    while fake.generation_calls < NEEDED // 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    assert process.returncode == -signal.SIGKILL
    before_rerun = _message_requests(fake)
    assert before_rerun < NEEDED  # it really died mid-run
    assert not (crashed / "summary.json").exists()  # nothing half-written

    rerun = subprocess.run(_command(fake, predictions, crashed), capture_output=True, timeout=60)
    assert rerun.returncode == 0, rerun.stderr.decode()
    assert _message_requests(fake) <= NEEDED + CONCURRENCY

    fake.reset_counters()
    clean = tmp_path / "clean"
    settings = JudgeSettings(base_url=fake.url, runs=RUNS, concurrency=CONCURRENCY)
    asyncio.run(judge_pass(make_records(QUESTIONS), settings, clean))
    assert _message_requests(fake) == NEEDED
    assert _j_numbers(crashed) == _j_numbers(clean)
    summary = json.loads((crashed / "summary.json").read_text())["judge"]
    assert summary["calls"]["cached"] >= NEEDED // 3 - CONCURRENCY
    assert summary["calls"]["cached"] + summary["calls"]["made"] >= NEEDED


BATCH_CREATE = {"anthropic": "/v1/messages/batches", "openai": "/v1/batches"}


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_sigkill_while_a_batch_is_pending_then_rerun_collects_the_same_batch(
    fake: FakeProvider, tmp_path: Path, provider: str
) -> None:
    fake.config.batch_ready_after_polls = 10_000
    predictions = write_native(tmp_path / "p.jsonl", make_records(6))
    out = tmp_path / "out"
    url = fake.url if provider == "anthropic" else fake.openai_url
    script = Path(sys.executable).parent / "locoscore"
    command = [str(script), "judge", str(predictions), "--out", str(out), "--provider", provider,
               "--base-url", url, "--batch", "--batch-poll", "0.05", "--runs", "2",
               "--no-progress"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def polls() -> int:
        return sum(1 for e in fake.requests_log if e["method"] == "GET" and "batches/" in e["path"])

    deadline = time.monotonic() + 30
    while polls() < 2 and time.monotonic() < deadline:  # submitted, recorded, now waiting
        time.sleep(0.02)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    assert polls() >= 2 and not (out / "summary.json").exists()

    fake.config.batch_ready_after_polls = 1
    rerun = subprocess.run(command, capture_output=True, timeout=60)
    assert rerun.returncode == 0, rerun.stderr.decode()
    creations = [e for e in fake.requests_log if e["method"] == "POST" and
                 e["path"] == BATCH_CREATE[provider]]  # fmt: skip
    assert len(creations) == 1  # resumed, never paid twice
    assert fake.generation_calls == 12
    judge = json.loads((out / "summary.json").read_text())["judge"]
    assert judge["calls"]["made"] == 12 and judge["calls"]["failed"] == 0
