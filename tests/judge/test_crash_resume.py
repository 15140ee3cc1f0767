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

from judge_helpers import make_records, score_by_question, write_native

from locoscore.judge import JudgeSettings, judge_pass
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
