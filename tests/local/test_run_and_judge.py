"""A run and a judge pass against the stand-in llama.cpp server (one slot, the rest queued,
json_schema refused with a 500, no usage, replies cut at max_tokens): nothing is lost."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.benchmarks.locomo import LOCOMO
from locoscore.benchmarks.locomo.data.load import load_predictions
from locoscore.benchmarks.locomo.judge import judge_pass
from locoscore.benchmarks.locomo.report_parts import build_reports
from locoscore.cli import app
from locoscore.judge.settings import JudgeSettings
from locoscore.run.answerer import AnswerSettings
from locoscore.run.outputs import write_run_outputs
from locoscore.run.pipeline import execute_run, resolve_run
from locoscore.run.settings import RunSettings
from locoscore.testing.llama_server import LlamaConfig, LlamaServer


@pytest.fixture(scope="module")
def server() -> Iterator[LlamaServer]:
    # 30 ms a request on one slot: the 32 calls in flight of a cloud provider's start would
    # queue ~1 s at the server, past the 0.5 s timeout below.
    with LlamaServer(LlamaConfig(slots=1, service_s=0.03)) as standin:
        yield standin


@pytest.fixture(scope="module")
def run_dir(
    server: LlamaServer, locomo_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    out = tmp_path_factory.mktemp("local") / "run"
    settings = RunSettings(
        system="bm25",
        out=out,
        dataset=locomo_path,
        conversations=["conv-30"],
        answer=AnswerSettings(
            provider="openai-compatible",
            model="gpt-4o-mini",  # asked for; the stand-in serves smollm2-135m
            base_url=server.openai_url,
            timeout_s=0.5,
        ),
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPENAI_API_KEY", "sk-test-local-0123456789")
        resolved = resolve_run(settings)
        write_run_outputs(asyncio.run(execute_run(resolved)), out)
        build_reports(out, LOCOMO)
    return out


@pytest.mark.filterwarnings("ignore:answers. asked for gpt-4o-mini")
def test_a_run_on_one_slot_loses_nothing_at_the_default_concurrency(
    server: LlamaServer, run_dir: Path
) -> None:
    records = [json.loads(line) for line in (run_dir / "predictions.jsonl").open()]
    run = json.loads((run_dir / "run.json").read_text())
    assert [r["error"] for r in records if r["error"]] == []
    assert server.abandoned == 0 and server.state.peak_busy == 1
    concurrency = run["answer_calls"]["concurrency"]
    # the slot and one call ready in the server's queue
    assert (concurrency["initial"], concurrency["max"]) == (2, 2)
    assert concurrency["source"] == "server slots: 1 (llama.cpp) + 1 queued"
    assert run["answer"]["server"]["context_window"] == 8192
    assert run["answer"]["served"]["models"] == ["smollm2-135m"]  # not the name asked for
    # no usage in the replies: counted locally, never 0
    assert run["answer_calls"]["usage"] == "counted locally"
    assert all(r["answer_tokens"]["input"] > 100 for r in records)
    report = (run_dir / "report.md").read_text()
    assert "(usage: counted locally)" in report
    assert "2 in flight at the start (server slots: 1 (llama.cpp) + 1 queued)" in report
    # the latency split by the server's timings: served ~30 ms, hardly queued
    served = sorted(r["answer_served_s"] for r in records)
    assert 0.025 <= served[len(served) // 2] <= 0.2
    assert all(0 <= r["answer_queued_s"] <= r["answer_latency_s"] for r in records)


def test_a_binary_judge_downgrades_once_and_keeps_verdicts_cut_at_max_tokens(
    server: LlamaServer, run_dir: Path, tmp_path: Path
) -> None:
    loaded = load_predictions(run_dir / "predictions.jsonl", "native")
    records = loaded.records[:12]
    server.state.formats.clear()
    settings = JudgeSettings(
        protocol="binary",
        provider="openai-compatible",
        model="local-judge",
        base_url=server.openai_url,
        runs=2,
        max_tokens=16,  # the stand-in's explanation runs to ~60 tokens: every reply is cut
        timeout_s=5.0,
    )
    result = asyncio.run(judge_pass(records, settings, tmp_path))
    assert result.run is not None and result.summary is not None
    assert result.run.stats.failed == 0
    assert all(row.method == "json_prefix" and row.score == 100.0 for row in result.run.rows)
    # refused only by the calls sent before the first refusal came back (2 in flight: one
    # slot, one queued; more only if a loaded machine timed one out and it was re-sent), then
    # never again: one downgrade for the whole pass
    formats = server.state.formats
    assert formats[0] == "json_schema" and formats[-1] == "json_object"
    assert 1 <= formats.count("json_schema") <= 4  # never the whole pass asking again
    assert formats.count("json_object") >= 24  # every one of the 24 verdicts
    assert result.summary["response_format"] == "json_object"
    assert result.summary["concurrency"]["initial"] == 2
    usage = result.summary["usage"]  # the stand-in reports none: counted, never 0
    assert usage["source"] == "counted locally" and usage["input_tokens"] > 24 * 300


def test_a_judge_pass_with_no_verdict_exits_1_and_says_why(
    server: LlamaServer, run_dir: Path, tmp_path: Path
) -> None:
    done = CliRunner().invoke(
        app,
        [
            "judge", str(run_dir / "predictions.jsonl"), "--out", str(tmp_path / "j"),
            "--protocol", "binary", "--provider", "openai-compatible", "--model", "m",
            "--base-url", server.openai_url, "--runs", "1", "--max-tokens", "2",
            "--response-format", "json_object", "--no-progress",
        ],
    )  # fmt: skip
    assert done.exit_code == 1, done.output
    assert "every judge call failed" in done.output
    assert "unparseable reply" in done.output
