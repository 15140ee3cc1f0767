"""The answer model's context window, known before the first call: prompts that cannot fit
are found up front (and by the dry run), recorded as context_overflow without a call; an
overflow the server reports is recognised from its body and not retried."""

from __future__ import annotations

import json
import math
from pathlib import Path

from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.llm.local_server import PromptCounter, ServerFacts
from locoscore.testing.llama_server import LlamaConfig, LlamaServer
from locoscore.tokens import count_tokens

CONVERSATION = "conv-30"


def _run(server: LlamaServer, locomo_path: Path, out: Path, *extra: str) -> object:
    return CliRunner().invoke(
        app,
        [
            "run", "--system", "full-context", "--out", str(out), "--dataset", str(locomo_path),
            "--conversations", CONVERSATION, "--answer-provider", "openai-compatible",
            "--answer-model", "m", "--answer-base-url", server.openai_url, "--no-progress",
            *extra,
        ],
    )  # fmt: skip


def _records(out: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (out / "predictions.jsonl").open()]


def test_full_context_over_the_window_is_found_before_any_answer_call(
    locomo_path: Path, tmp_path: Path
) -> None:
    with LlamaServer(LlamaConfig(slots=2, n_ctx=4096)) as server:
        dry = _run(server, locomo_path, tmp_path / "dry", "--dry-run")
        done = _run(server, locomo_path, tmp_path / "run")
        assert server.state.formats == []  # not one chat completion was asked for
    assert dry.exit_code == 0, dry.output
    assert "answer calls to make: 0" in dry.output
    assert "context window: 4,096 tokens (the server's /props n_ctx); 105 of 105" in dry.output
    assert done.exit_code == 1
    assert f"{CONVERSATION}: 105 of 105 answer prompt(s) do not fit" in done.output
    assert "105 question(s) failed (context_overflow 105;" in done.output
    records = _records(tmp_path / "run")
    assert all(str(r["error"]).startswith("context_overflow: the prompt's") for r in records)
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["measures"]["failed_by_kind"] == {"context_overflow": 105}
    assert run["context_fit"]["overflowing"] == 105
    # the report says so in its headline and keeps the baselines out unless asked
    report = (tmp_path / "run" / "report.md").read_text()
    assert "105 of 105 answers failed (context_overflow 105)" in report
    assert "Not compared: answers of this run failed" in report
    assert "against published baselines" not in report
    anyway = CliRunner().invoke(
        app, ["report", str(tmp_path / "run"), "--compare-baselines-anyway"]
    )
    assert anyway.exit_code == 0, anyway.output
    assert "against published baselines" in (tmp_path / "run" / "report.md").read_text()


def test_an_overflow_the_server_reports_is_recorded_not_retried(
    locomo_path: Path, tmp_path: Path
) -> None:
    # no /props: the window is unknown, so every prompt is sent and refused
    config = LlamaConfig(slots=4, n_ctx=4096, props=False, overflow_style="llama-cpp-python")
    with LlamaServer(config) as server:
        done = _run(server, locomo_path, tmp_path / "run")
        statuses = dict(server.state.statuses)
    assert done.exit_code == 1
    assert statuses.get(400) == 105  # once per question: no retry, no stop after 5 in a row
    assert all(
        str(r["error"]).startswith("context_overflow: HTTP 400") for r in _records(tmp_path / "run")
    )


def test_a_window_smaller_than_a_bare_question_is_bad_input(
    locomo_path: Path, tmp_path: Path
) -> None:
    with LlamaServer() as server:
        done = _run(server, locomo_path, tmp_path / "run", "--answer-context-window", "150")
    assert done.exit_code == 2
    lines = done.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: field '--answer-context-window'")
    assert "the 150-token context window" in lines[0] and "conv-30#" in lines[0]
    assert not (tmp_path / "run").exists()


def test_without_the_servers_tokenizer_tiktoken_counts_with_a_margin() -> None:
    text = "What did Caroline research after the support group meeting? " * 20
    expected = math.ceil(count_tokens(text) * 1.10) + 32
    assert PromptCounter(ServerFacts(), "m").count(text) == expected
