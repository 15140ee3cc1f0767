"""`locoscore run` off a terminal: progress lines; SIGTERM stops it with one line and exit 143;
the rerun answers only what is missing and run.json adds up both attempts. Dry runs need no
key, and say what they cannot estimate without one."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from run_helpers import answer_requests, predictions, run_cli

CONCURRENCY = 4
QUESTIONS = 105  # conv-30
LINE = re.compile(
    r"^answering: (\d+)/105 questions \(\d+ %\) · (\d+) calls · 0 failed · cost \$\d+\.\d\d"
    r" · elapsed \d+s · ETA (\d+s|\d+m\d\ds|unknown)"
)


def _args(fake: Any, dataset: Path, out: Path) -> list[str]:
    return ["--system", "bm25", "--out", str(out), "--dataset", str(dataset),
            "--conversations", "conv-30", "--answer-provider", "openai",
            "--answer-model", "gpt-4o-mini", "--answer-base-url", fake.openai_url]  # fmt: skip


def _saved(out: Path) -> int:
    with sqlite3.connect(out / "run_state.sqlite") as conn:
        return int(conn.execute("SELECT COUNT(*) FROM questions WHERE ok = 1").fetchone()[0])


def test_sigterm_stops_with_one_line_and_the_rerun_adds_up_both_attempts(
    fake: Any, locomo_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.config.latency_s = 0.05
    monkeypatch.setenv("LOCOSCORE_PROGRESS_EVERY", "0.2")
    out = tmp_path / "run"
    command = [str(Path(sys.executable).parent / "locoscore"), "run",
               *_args(fake, locomo_path, out), "--concurrency", str(CONCURRENCY)]  # fmt: skip
    with (tmp_path / "stderr.txt").open("w") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr)
        deadline = time.monotonic() + 60
        while len(answer_requests(fake)) < 30 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 143
    first = len(answer_requests(fake))
    saved = _saved(out)
    assert 30 <= saved < QUESTIONS and first - saved <= CONCURRENCY
    lines = (tmp_path / "stderr.txt").read_text().splitlines()
    assert "Traceback" not in "\n".join(lines)
    assert lines[-1] == (
        f"interrupted: {saved} of {QUESTIONS} questions saved; rerun the same command to resume"
    )
    progress = [LINE.match(line) for line in lines if line.startswith("answering")]
    assert len(progress) >= 2 and all(progress)
    assert not (out / "run.json").exists()

    assert run_cli(*_args(fake, locomo_path, out)).exit_code == 0
    # every question answered once; the answers in flight at the signal are the only repeats
    assert QUESTIONS <= len(answer_requests(fake)) <= QUESTIONS + CONCURRENCY
    calls = json.loads((out / "run.json").read_text())["answer_calls"]
    now, earlier = calls["this_attempt"], calls["earlier_attempts"]
    assert now["requests"] == len(answer_requests(fake)) - first
    assert earlier["attempts"] == 1 and saved <= earlier["requests"] <= first
    assert calls["made"] == now["requests"] + earlier["requests"]
    assert calls["cached"] >= saved
    # The whole job's cost: each answer paid once, at gpt-4o-mini's 0.15 / 0.60 USD per Mtok.
    records = predictions(out)
    paid = sum(r["answer_tokens"]["input"] * 0.15 + r["answer_tokens"]["output"] * 0.6
               for r in records) / 1e6  # fmt: skip
    assert calls["cost_usd"] == pytest.approx(paid, rel=1e-3)
    assert 0 < now["cost_usd"] < paid
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["answer_calls"] == calls
    report = (out / "report.md").read_text()
    assert (
        f"{calls['made']} calls made ({now['requests']} now, {earlier['requests']} by 1 " in report
    )


def test_dry_run_needs_no_key_and_names_what_it_cannot_estimate(
    fake: Any, locomo_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [k for k in os.environ if k.endswith("_API_KEY")]:
        monkeypatch.delenv(name)
    out = tmp_path / "dry"
    bm25 = run_cli("--system", "bm25", "--out", str(out), "--dataset", str(locomo_path),
                   "--conversations", "conv-30", "--dry-run")  # fmt: skip
    assert bm25.exit_code == 0, bm25.output
    assert "answer calls to make: 105 (cached or not needed: 0)" in bm25.output
    assert re.search(r"estimated tokens: [\d,]+ in, 2,100 out", bm25.output)
    embedding = run_cli("--system", "embedding", "--out", str(out), "--dataset",
                        str(locomo_path), "--conversations", "conv-30", "--dry-run")  # fmt: skip
    assert embedding.exit_code == 0, embedding.output
    text = " ".join(embedding.output.split())
    assert "answer calls to make: 105 (cached or not needed: 0)" in text
    assert (
        "not estimated: ingestion, retrieval, and the answer calls' tokens and cost (their "
        "prompts hold what retrieval finds): embedding ingestion calls "
        "https://api.openai.com/v1, which needs a key in OPENAI_API_KEY"
    ) in text
    assert not out.exists() and fake.requests == 0


def test_a_mem0_dry_run_names_the_key_its_ingestion_needs(
    fake: Any, locomo_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # find_spec, not importorskip: importing mem0 here, before its adapter turns telemetry
    # off, would make every later mem0 test of this process refuse to start
    if importlib.util.find_spec("mem0") is None:
        pytest.skip("the mem0 extra is not installed")
    for name in [k for k in os.environ if k.endswith("_API_KEY")]:
        monkeypatch.delenv(name)
    out = tmp_path / "run"
    mem0 = run_cli("--system", "mem0", "--out", str(out), "--dataset", str(locomo_path),
                   "--conversations", "conv-30", "--dry-run")  # fmt: skip
    assert mem0.exit_code == 0, mem0.output
    assert (
        "mem0's ingestion calls its LLM and embedder, which need a key in OPENAI_API_KEY"
        in " ".join(mem0.output.split())
    )
    assert not out.exists() and fake.requests == 0


def test_a_finished_run_rerun_reports_the_whole_job(
    fake: Any, locomo_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    assert run_cli(*_args(fake, locomo_path, out)).exit_code == 0
    first = json.loads((out / "run.json").read_text())["answer_calls"]
    again = run_cli(*_args(fake, locomo_path, out))
    assert again.exit_code == 0, again.output
    assert len(answer_requests(fake)) == QUESTIONS  # the rerun asked nothing
    calls = json.loads((out / "run.json").read_text())["answer_calls"]
    assert (calls["made"], calls["cached"], calls["cost_usd"]) == (
        QUESTIONS,
        QUESTIONS,
        first["cost_usd"],
    )
    assert calls["this_attempt"]["requests"] == 0
    assert calls["earlier_attempts"] == {"attempts": 1, **first["this_attempt"]}
    assert first["cost_usd"] > 0
    text = " ".join(again.output.split())
    assert "answer 105 calls made (0 now, 105 by 1 earlier attempt), 105 from the cache" in text


class Recorder:
    """A progress sink that keeps what it is told."""

    def __init__(self) -> None:
        self.statuses: list[str] = []
        self.done = 0

    def start(self, total: int, done: int, cached: int) -> None:
        self.total = total

    def update(
        self, done: int, failed: int, tokens: int, cost_usd: float | None, calls: int | None = None
    ) -> None:
        self.done += done

    def status(self, text: str) -> None:
        self.statuses.append(text)

    def stop(self) -> None:
        pass


def test_ingestion_reports_its_sessions_to_the_progress_line(
    locomo_path: Path, tmp_path: Path
) -> None:
    import asyncio

    from locoscore.run.answerer import AnswerSettings
    from locoscore.run.pipeline import execute_run, resolve_run
    from locoscore.run.settings import RunSettings

    settings = RunSettings(system="bm25", out=tmp_path / "run", dataset=locomo_path,
                           conversations=["conv-30", "conv-26"],
                           answer=AnswerSettings(provider="extractive"))  # fmt: skip
    recorder = Recorder()
    asyncio.run(execute_run(resolve_run(settings), progress=recorder))
    sessions = 19 + 19  # conv-30 and conv-26
    assert recorder.statuses[0] == f"ingested 1/{sessions} sessions"
    shown = [s for s in recorder.statuses if s]
    assert shown == [f"ingested {i}/{sessions} sessions" for i in range(1, sessions)]
    assert recorder.statuses[-1] == "" and recorder.done == recorder.total == 105 + 199
