"""What `run` tells its user against a local server: the concurrency it chose and why, the
answer calls sent again by kind, its own `--timeout`, a one-at-a-time server kept to two
calls in flight, advice that fits a context overflow, a window that contradicts the
server's, the unknown window of a dry run, and one cost display for an unpriced model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.judge import judge_pass
from locoscore.judge.settings import JudgeSettings
from locoscore.testing.llama_server import LlamaConfig, LlamaServer

CONVERSATION = "conv-30"


def _run(server: LlamaServer, locomo_path: Path, out: Path, *extra: str) -> Any:
    return CliRunner().invoke(
        app,
        [
            "run", "--system", "bm25", "--out", str(out), "--dataset", str(locomo_path),
            "--conversations", CONVERSATION, "--answer-provider", "openai-compatible",
            "--answer-model", "m", "--answer-base-url", server.openai_url, "--no-progress",
            *extra,
        ],
    )  # fmt: skip


def _run_json(out: Path) -> dict[str, Any]:
    return json.loads((out / "run.json").read_text())


def test_timeouts_on_runs_own_limit_are_counted_by_kind_and_the_concurrency_printed(
    locomo_path: Path, tmp_path: Path
) -> None:
    # the first request holds its slot 2 s: past `--timeout 0.5`, then sent again
    config = LlamaConfig(slots=4, service_s=0.01, slow_requests=1, slow_s=2.0)
    with LlamaServer(config) as server:
        done = _run(server, locomo_path, tmp_path / "run", "--timeout", "0.5", "--limit", "12")
    assert done.exit_code == 0, done.output
    calls = _run_json(tmp_path / "run")["answer_calls"]
    timeouts = calls["retries"].get("timeout", 0)
    assert timeouts >= 1 and set(calls["retries"]) <= {"timeout", "connection"}
    # every request beyond one per answer was an attempt sent again, and is named
    assert calls["made"] == 12 + sum(calls["retries"].values())
    assert f"answer {calls['made']} calls made ({sum(calls['retries'].values())} sent again: " in (
        done.output
    )
    assert f"timeout {timeouts}" in done.output
    # the concurrency it chose, and why: 4 slots and one call queued
    assert "answer concurrency: 5 at the start (server slots: 4 (llama.cpp) + 1 queued)" in (
        done.output
    )


def test_a_bad_timeout_is_bad_input(locomo_path: Path, tmp_path: Path) -> None:
    with LlamaServer(LlamaConfig()) as server:
        done = _run(server, locomo_path, tmp_path / "run", "--timeout", "0")
    assert done.exit_code == 2
    assert "--timeout must be more than 0 seconds" in done.output
    assert not (tmp_path / "run").exists()


def test_a_one_at_a_time_server_gets_at_most_two_calls_in_flight(
    locomo_path: Path, tmp_path: Path
) -> None:
    config = LlamaConfig(flavour="llama-cpp-python", overflow_style="llama-cpp-python")
    config.service_s = 0.02
    with LlamaServer(config) as server:
        done = _run(server, locomo_path, tmp_path / "run", "--limit", "20")
        assert done.exit_code == 0, done.output
        assert server.state.peak_in_flight <= 2  # one served, one ready in its queue
        concurrency = _run_json(tmp_path / "run")["answer_calls"]["concurrency"]
        assert concurrency["source"] == "server slots: 1 (llama-cpp-python) + 1 queued"
        assert (concurrency["initial"], concurrency["max"]) == (2, 2)
        # the judge at its defaults too (it ignores `n`: one run a request)
        server.state.peak_in_flight = 0
        from locoscore.data.load import load_predictions

        records = load_predictions(tmp_path / "run" / "predictions.jsonl", "native").records
        settings = JudgeSettings(
            protocol="binary", provider="openai-compatible", model="m",
            base_url=server.openai_url, runs=3, timeout_s=10.0,
        )  # fmt: skip
        judged = asyncio.run(judge_pass(records[:8], settings, tmp_path / "judge"))
    assert judged.run is not None and judged.run.stats.failed == 0
    assert server.state.peak_in_flight <= 2


def test_overflows_get_advice_that_would_help_not_a_rerun(
    locomo_path: Path, tmp_path: Path
) -> None:
    with LlamaServer(LlamaConfig(n_ctx=4096)) as server:
        done = CliRunner().invoke(
            app,
            [
                "run", "--system", "full-context", "--out", str(tmp_path / "run"),
                "--dataset", str(locomo_path), "--conversations", CONVERSATION,
                "--answer-provider", "openai-compatible", "--answer-model", "m",
                "--answer-base-url", server.openai_url, "--no-progress", "--limit", "6",
            ],
        )  # fmt: skip
    assert done.exit_code == 1
    assert "6 question(s) failed (context_overflow 6;" in done.output
    assert "rerun the same command" not in done.output
    assert "do not fit the 4,096-token context window: a rerun fails the same way" in done.output
    assert "a model or server with a larger window (llama-server -c)" in done.output
    assert "a retrieval system (--system bm25 or embedding)" in done.output


def test_a_window_larger_than_the_servers_warns(locomo_path: Path, tmp_path: Path) -> None:
    with LlamaServer(LlamaConfig(n_ctx=2048)) as server:
        done = _run(
            server, locomo_path, tmp_path / "run", "--answer-context-window", "100000",
            "--dry-run", "--limit", "4",
        )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert (
        "--answer-context-window 100,000 is larger than the 2,048-token window the server "
        "reports (/props n_ctx)"
    ) in done.output


def test_a_dry_run_says_when_the_window_is_unknown(locomo_path: Path, tmp_path: Path) -> None:
    # no /props: the server names no window; an unpriced model: n/a, not $0.00
    with LlamaServer(LlamaConfig(props=False)) as server:
        unknown = _run(server, locomo_path, tmp_path / "a", "--dry-run", "--limit", "4")
        known = _run(
            server, locomo_path, tmp_path / "b", "--dry-run", "--limit", "4",
            "--answer-context-window", "8192",
        )  # fmt: skip
    assert unknown.exit_code == 0, unknown.output
    assert "context window: unknown (the server names none; --answer-context-window" in (
        unknown.output
    )
    assert "context window: unknown" not in known.output
    assert "context window: 8,192 tokens (--answer-context-window)" in known.output
    assert "estimated cost: n/a (no price for this model)" in unknown.output


def test_an_unpriced_model_is_na_even_when_no_answer_came_back(
    locomo_path: Path, tmp_path: Path
) -> None:
    # every prompt overflows the window: no answer is used, and the cost is still n/a
    with LlamaServer(LlamaConfig(n_ctx=4096)) as server:
        done = CliRunner().invoke(
            app,
            [
                "run", "--system", "full-context", "--out", str(tmp_path / "run"),
                "--dataset", str(locomo_path), "--conversations", CONVERSATION,
                "--answer-provider", "openai-compatible", "--answer-model", "m",
                "--answer-base-url", server.openai_url, "--no-progress", "--limit", "4",
            ],
        )  # fmt: skip
    assert done.exit_code == 1
    assert "cost n/a" in done.output and "$0.0000" not in done.output
    calls = _run_json(tmp_path / "run")["answer_calls"]
    assert calls["cost_usd"] is None
    assert calls["cost_unknown_reason"] == "no price for model m (add it with --prices FILE)"
    assert calls["this_attempt"]["cost_usd"] is None
