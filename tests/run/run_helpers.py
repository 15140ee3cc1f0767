"""Running `locoscore run` from tests: in-process CLI calls and the outputs they leave."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from locoscore.cli import app

TIMING_FIELDS = ("search_latency_s", "answer_latency_s", "total_latency_s")


def echo_first_memory(prompt: str) -> str:
    """The fake answerer: the words of the first retrieved memory (deterministic per prompt)."""
    match = re.search(r"^\[1\] \(session of [^)]*\) (.*)$", prompt, re.MULTILINE)
    return match.group(1) if match else "Not mentioned in the conversation"


def run_cli(*args: str) -> Any:
    return CliRunner().invoke(app, ["run", *args, "--no-progress"])


def llm_args(fake: Any, dataset: Path, out: Path, *extra: str) -> list[str]:
    return [
        "--system", "bm25", "--out", str(out), "--dataset", str(dataset),
        "--answer-provider", "openai-compatible", "--answer-model", "fake-answerer",
        "--answer-base-url", fake.openai_url, *extra,
    ]  # fmt: skip


def predictions(out: Path) -> list[dict[str, Any]]:
    lines = (out / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def without_timing(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in TIMING_FIELDS} for r in records]


def answer_requests(fake: Any) -> list[dict[str, Any]]:
    return [e for e in fake.requests_log if e["path"] == "/v1/chat/completions"]


def run_lib(fake: Any, dataset: Path, out: Path, **answer: Any) -> Any:
    """The run through the library with fast retries (the CLI's backoff starts at 0.5 s)."""
    import asyncio

    from locoscore.run.answerer import AnswerSettings
    from locoscore.run.outputs import write_run_outputs
    from locoscore.run.pipeline import execute_run, resolve_run
    from locoscore.run.settings import RunSettings

    settings = RunSettings(
        system="bm25",
        out=out,
        dataset=dataset,
        conversations=["conv-30"],
        concurrency=answer.pop("concurrency", 64),
        answer=AnswerSettings(
            provider="openai-compatible",
            model="fake-answerer",
            base_url=fake.openai_url,
            retry_base_delay_s=0.001,
            **answer,
        ),
    )
    result = asyncio.run(execute_run(resolve_run(settings)))
    write_run_outputs(result, out)
    return result
