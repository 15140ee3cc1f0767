"""Fast, resumable, nothing lost: kill -9 and rerun, faults, the cost cap and dry runs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from run_helpers import (
    answer_requests,
    llm_args,
    predictions,
    run_cli,
    run_lib,
    without_timing,
)

CONCURRENCY = 4


def _command(fake: Any, dataset: Path, out: Path) -> list[str]:
    script = Path(sys.executable).parent / "locoscore"
    return [
        str(script), "run", *llm_args(fake, dataset, out, "--conversations", "conv-30"),
        "--concurrency", str(CONCURRENCY), "--no-progress",
    ]  # fmt: skip


def test_sigkill_mid_run_then_rerun_matches_an_uninterrupted_run(
    fake: Any, locomo_path: Path, tmp_path: Path
) -> None:
    fake.config.latency_s = 0.05
    crashed = tmp_path / "crashed"
    process = subprocess.Popen(
        _command(fake, locomo_path, crashed), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60
    while len(answer_requests(fake)) < 40 and time.monotonic() < deadline:
        time.sleep(0.02)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    before_kill = len(answer_requests(fake))
    assert 40 <= before_kill < 105, "the run was killed mid-way"
    assert not (crashed / "predictions.jsonl").exists()

    result = subprocess.run(_command(fake, locomo_path, crashed), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    made = len(answer_requests(fake))
    # every question answered once, plus at most the calls that were in flight at the kill
    assert 105 <= made <= 105 + CONCURRENCY

    fake.config.latency_s = 0.0
    clean = tmp_path / "clean"
    assert run_cli(*llm_args(fake, locomo_path, clean, "--conversations", "conv-30")).exit_code == 0
    assert without_timing(predictions(crashed)) == without_timing(predictions(clean))
    crashed_summary = json.loads((crashed / "summary.json").read_text())
    clean_summary = json.loads((clean / "summary.json").read_text())
    assert crashed_summary["lexical"] == clean_summary["lexical"]


def test_rate_limits_and_server_errors_are_retried_and_nothing_is_lost(
    fake: Any, locomo_path: Path, tmp_path: Path
) -> None:
    fake.config.faults = {"429": 0.2, "500": 0.1, "529": 0.05, "timeout": 0.02}
    fake.config.retry_after_s = 0.05
    fake.config.timeout_s = 0.5
    out = tmp_path / "faulty"
    result = run_lib(fake, locomo_path, out, timeout_s=0.3, max_attempts=20)
    assert result.failed == 0 and result.stop_reason is None
    records = predictions(out)
    assert len(records) == 105 and all(r["error"] is None for r in records)
    assert fake.status_counts.get(429, 0) > 0 and fake.status_counts.get(500, 0) > 0
    # the faults changed nothing the system or the answerer decided
    fake.config.faults = {}
    clean = tmp_path / "clean"
    assert run_cli(*llm_args(fake, locomo_path, clean, "--conversations", "conv-30")).exit_code == 0
    assert without_timing(records) == without_timing(predictions(clean))


def test_answers_that_still_fail_are_recorded_and_only_they_are_retried(
    fake: Any, locomo_path: Path, tmp_path: Path
) -> None:
    fake.config.scores = ["500"] * 6 * 3  # three questions fail all six attempts... at first
    fake.config.faults = {}
    out = tmp_path / "run"
    result = run_lib(fake, locomo_path, out, concurrency=1)
    assert result.failed == 3
    records = predictions(out)
    failed = [r for r in records if r["error"] is not None]
    assert len(records) == 105 and len(failed) == 3
    assert all(r["prediction"] == "" and r["error"].startswith("server: HTTP 500") for r in failed)
    fake.reset_counters()
    result = run_cli(*llm_args(fake, locomo_path, out, "--conversations", "conv-30"))
    assert result.exit_code == 0, result.output
    assert len(answer_requests(fake)) == 3
    assert all(r["error"] is None for r in predictions(out))


def test_dry_run_counts_calls_tokens_and_cost_and_writes_no_predictions(
    fake: Any, locomo_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "dry"
    args = llm_args(fake, locomo_path, out, "--conversations", "conv-30")
    args[args.index("openai-compatible")] = "openai"
    args[args.index("fake-answerer")] = "gpt-4o-mini"
    result = run_cli(*args, "--dry-run")
    assert result.exit_code == 0, result.output
    assert "answer calls to make: 105 (cached or not needed: 0)" in result.output
    assert "estimated cost: $0.0" in result.output
    assert answer_requests(fake) == []
    assert not (out / "predictions.jsonl").exists() and not (out / "run.json").exists()
    # after the real run, nothing is left to call
    assert run_cli(*args).exit_code == 0
    again = run_cli(*args, "--dry-run")
    assert "answer calls to make: 0 (cached or not needed: 105)" in again.output


def test_max_cost_stops_before_passing_it_and_a_rerun_goes_on(
    fake: Any, locomo_path: Path, tmp_path: Path
) -> None:
    prices = tmp_path / "prices.json"
    # one call of ~700 prompt tokens costs ~0.0007 USD at 1 USD/Mtok
    prices.write_text(json.dumps({"fake-answerer": {"input": 1.0, "output": 1.0}}))
    out = tmp_path / "capped"
    args = llm_args(fake, locomo_path, out, "--conversations", "conv-30", "--concurrency", "1")
    result = run_cli(*args, "--prices", str(prices), "--max-cost", "0.01")
    assert result.exit_code == 1
    records = predictions(out)
    stopped = [r for r in records if r["error"] and r["error"].startswith("not run: --max-cost")]
    answered = [r for r in records if r["error"] is None]
    assert answered and stopped and len(answered) + len(stopped) == 105
    run = json.loads((out / "run.json").read_text())
    assert run["answer_calls"]["cost_usd"] <= 0.01
    assert "--max-cost 0.01 USD would be exceeded" in run["stop_reason"]
