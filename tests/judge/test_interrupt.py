"""`locoscore judge` off a terminal: steady progress lines; SIGTERM stops it with one line and
exit 143; the rerun asks only what is missing and reports the whole job's calls and cost."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from judge_helpers import make_records, openai_settings, write_native
from typer.testing import CliRunner

from locoscore.benchmarks.locomo.judge import judge_pass
from locoscore.cli import app
from locoscore.testing.fake_provider import FakeProvider

QUESTIONS, RUNS, CONCURRENCY = 8, 3, 2
NEEDED = QUESTIONS * RUNS
LINE = re.compile(
    r"^judging: (\d+)/24 judgments \(\d+ %\) · (\d+) calls · 0 failed · cost \$\d+\.\d\d"
    r" · elapsed \d+s · ETA (\d+s|\d+m\d\ds|unknown)$"
)


def _command(fake: FakeProvider, predictions: Path, out: Path, *extra: str) -> list[str]:
    script = Path(sys.executable).parent / "locoscore"
    return [str(script), "judge", str(predictions), "--out", str(out), "--base-url", fake.url,
            "--runs", str(RUNS), "--concurrency", str(CONCURRENCY), *extra]  # fmt: skip


def _requests(fake: FakeProvider) -> int:
    return sum(1 for e in fake.requests_log if e["path"] == "/v1/messages")


def _saved(out: Path) -> int:
    with sqlite3.connect(out / "judge_cache.sqlite") as conn:
        return int(conn.execute("SELECT COUNT(*) FROM judgments").fetchone()[0])


def test_sigterm_stops_with_one_line_and_the_rerun_completes_paying_each_call_once(
    fake: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.config.latency_s = 0.1
    monkeypatch.setenv("LOCOSCORE_PROGRESS_EVERY", "0.2")
    predictions = write_native(tmp_path / "p.jsonl", make_records(QUESTIONS))
    out = tmp_path / "out"
    with (tmp_path / "stderr.txt").open("w") as stderr:  # not a terminal
        process = subprocess.Popen(
            _command(fake, predictions, out), stdout=subprocess.DEVNULL, stderr=stderr
        )
        deadline = time.monotonic() + 60
        while fake.generation_calls < 8 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)  # a progress line after the first verdicts
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 143
    first = _requests(fake)
    saved = _saved(out)
    assert 8 <= saved < NEEDED and first - saved <= CONCURRENCY  # lost: only those in flight
    lines = (tmp_path / "stderr.txt").read_text().splitlines()
    assert "Traceback" not in "\n".join(lines)
    assert lines[-1] == (
        f"interrupted: {saved} of {NEEDED} judgments saved; rerun the same command to resume"
    )
    assert sum(line.startswith("interrupted") for line in lines) == 1
    progress = [LINE.match(line) for line in lines[:-1] if line.startswith("judging")]
    assert len(progress) >= 2 and all(progress)
    done = [int(m.group(1)) for m in progress if m]
    assert done == sorted(done) and 0 < done[-1] <= saved  # steady, and never ahead of the cache
    assert not (out / "summary.json").exists()

    rerun = subprocess.run(_command(fake, predictions, out, "--no-progress"), capture_output=True)
    assert rerun.returncode == 0, rerun.stderr.decode()
    assert _requests(fake) - first == NEEDED - saved  # exactly the missing calls, once each
    judge = json.loads((out / "summary.json").read_text())["judge"]
    calls, usage = judge["calls"], judge["usage"]
    assert calls["this_attempt"]["requests"] == NEEDED - saved
    earlier = calls["earlier_attempts"]
    assert earlier["attempts"] == 1 and saved <= earlier["requests"] <= first
    assert calls["made"] == earlier["requests"] + NEEDED - saved
    assert calls["cached"] == saved and calls["judgments"] == NEEDED
    # The whole job's cost: every verdict paid once, at sonnet's 3 / 15 USD per Mtok.
    rows = [json.loads(line) for line in (out / "judgments.jsonl").read_text().splitlines()]
    paid = sum(r["input_tokens"] * 3 + r["output_tokens"] * 15 for r in rows) / 1e6
    assert usage["estimated_cost_usd"] == pytest.approx(paid, abs=1e-4)
    now = calls["this_attempt"]["cost_usd"]
    assert 0 < now < paid and earlier["cost_usd"] == pytest.approx(paid - now, abs=1e-5)


def test_n_per_request_reports_requests_and_judgments_apart(
    fake: FakeProvider, tmp_path: Path
) -> None:
    import asyncio

    settings = openai_settings(fake, runs=4, n_per_request=4)
    result = asyncio.run(judge_pass(make_records(3), settings, tmp_path / "out"))
    assert result.summary is not None
    calls = result.summary["calls"]
    assert (calls["made"], calls["judgments"]) == (3, 12)  # one request of n=4 per question
    assert calls["this_attempt"]["requests"] == 3 and calls["this_attempt"]["judgments"] == 12
    predictions = write_native(tmp_path / "p.jsonl", make_records(3))
    again = CliRunner().invoke(app, ["judge", str(predictions), "--out", str(tmp_path / "cli"),
                                     "--provider", "openai", "--base-url", fake.openai_url,
                                     "--runs", "4", "--no-progress"])  # fmt: skip
    assert again.exit_code == 0, again.output
    assert "calls: 3 requests made for 12 judgments, 0 cached" in again.output


def test_dry_runs_need_no_key(
    fake: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [k for k in os.environ if k.endswith("_API_KEY")]:
        monkeypatch.delenv(name)
    predictions = write_native(tmp_path / "p.jsonl", make_records(2))
    result = CliRunner().invoke(
        app, ["judge", str(predictions), "--out", str(tmp_path / "out"), "--dry-run"]
    )
    assert result.exit_code == 0, result.output
    assert "calls to make: 20 (cached: 0" in result.output
    assert fake.requests == 0 and not (tmp_path / "out").exists()
