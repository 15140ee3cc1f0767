"""The judge's runs of a question against servers that limit `n` (choices a request):
llama.cpp refuses `n` above its slots, others refuse it in their own words or ignore it.
Every run is judged once: the choices the server answered add up to the runs asked."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.llm.choices import refused_choices
from locoscore.testing.llama_server import LlamaConfig, LlamaServer

QUESTIONS = 6
RUNS = 10
_NUMBER = re.compile(r"gathering number (\d+)")


def verdict(prompt: str) -> str:
    """Varies by question (never by the per-call fence token): a wrong split shows."""
    match = _NUMBER.search(prompt)
    return "CORRECT" if match and int(match.group(1)) % 3 else "WRONG"


def _predictions(path: Path) -> Path:
    lines = [
        json.dumps(
            {
                "sample_id": "conv-t0",
                "qa_index": i,
                "category": 1 + i % 4,
                "question": f"What did speaker A bring to gathering number {i}?",
                "answer": f"item {i}",
                "prediction": f"They brought item {i}.",
            }
        )
        for i in range(QUESTIONS)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _judge(server: LlamaServer, tmp_path: Path, name: str, *extra: str) -> dict[str, Any]:
    out = tmp_path / name
    done = CliRunner().invoke(
        app,
        [
            "judge", str(_predictions(tmp_path / "p.jsonl")), "--out", str(out),
            "--protocol", "binary", "--provider", "openai-compatible", "--model", "m",
            "--base-url", server.openai_url, "--runs", str(RUNS), "--timeout", "10",
            "--response-format", "json_object", "--no-progress", *extra,
        ],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    rows = [json.loads(line) for line in (out / "judgments.jsonl").read_text().splitlines()]
    summary = json.loads((out / "summary.json").read_text())["judge"]
    return {"rows": rows, "summary": summary, "output": done.output}


def _verdicts(rows: list[dict[str, Any]]) -> list[tuple[str, int, float | None]]:
    return sorted((r["key"], r["run"], r["score"]) for r in rows)


@pytest.fixture
def reference(tmp_path: Path) -> list[tuple[str, int, float | None]]:
    """The verdicts of a server that takes n = 10: one request a question."""
    with LlamaServer(LlamaConfig(flavour="vllm", slots=10, verdict=verdict)) as server:
        judged = _judge(server, tmp_path, "reference")
        assert server.completions == QUESTIONS and server.state.refused_n == 0
    verdicts = _verdicts(judged["rows"])
    assert len(verdicts) == QUESTIONS * RUNS
    assert {score for _, _, score in verdicts} == {0.0, 100.0}  # both verdicts occur
    return verdicts


def test_the_stand_in_refuses_n_above_its_slots_as_llama_server_does() -> None:
    import httpx

    with LlamaServer(LlamaConfig(slots=1)) as server:
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        refused = httpx.post(f"{server.openai_url}/chat/completions", json={**body, "n": 10})
        taken = httpx.post(f"{server.openai_url}/chat/completions", json={**body, "n": 1})
    assert refused.status_code == 400
    message = refused.json()["error"]["message"]
    assert message == "Field 'n': Value must be between 1 <= value <= 1, but got 10"
    assert taken.status_code == 200 and len(taken.json()["choices"]) == 1
    assert (server.state.refused_n, server.completions) == (1, 1)


@pytest.mark.parametrize("slots", [1, 4])
def test_runs_over_the_slots_are_split_by_the_slots_props_names(
    slots: int, tmp_path: Path, reference: list[tuple[str, int, float | None]]
) -> None:
    with LlamaServer(LlamaConfig(slots=slots, verdict=verdict)) as server:
        judged = _judge(server, tmp_path, f"slots{slots}")
    rows = judged["rows"]
    assert len(rows) == QUESTIONS * RUNS and all(r["score"] is not None for r in rows)
    assert _verdicts(rows) == reference
    # /props named the slots: no request was refused; each run was one choice, none twice
    assert server.state.refused_n == 0
    assert server.state.choices == QUESTIONS * RUNS
    per_question = -(-RUNS // slots)  # 10 requests of 1, or 4 + 4 + 2
    assert server.completions == QUESTIONS * per_question
    calls = judged["summary"]["calls"]
    assert (calls["made"], calls["judgments"], calls["failed"]) == (
        QUESTIONS * per_question,
        QUESTIONS * RUNS,
        0,
    )
    # a request of n choices holds n slots: never more than the server has, one queued
    assert server.state.peak_busy <= slots
    concurrency = judged["summary"]["concurrency"]
    # 1 slot + 1 queued; or one request of 4 runs (all 4 slots) + 1 queued
    assert (concurrency["initial"], concurrency["max"]) == (2, 2)
    assert concurrency["source"] == (
        "server slots: 1 (llama.cpp) + 1 queued"
        if slots == 1
        else "server slots: 4 (llama.cpp), 4 runs a request, + 1 queued"
    )
    assert f"concurrency: 2 at the start ({concurrency['source']}), " in judged["output"]


def test_a_limit_learnt_from_the_refusal_splits_the_rest(
    tmp_path: Path, reference: list[tuple[str, int, float | None]]
) -> None:
    # no /props or /slots: the limit is known only from the refusal's message
    with LlamaServer(LlamaConfig(slots=4, props=False, verdict=verdict)) as server:
        judged = _judge(server, tmp_path, "learnt", "--concurrency", "2")
    rows = judged["rows"]
    assert _verdicts(rows) == reference
    assert server.state.choices == QUESTIONS * RUNS  # every run once
    # refused only by the requests sent before the first refusal came back (2 in flight)
    assert 1 <= server.state.refused_n <= 2
    assert server.completions == QUESTIONS * 3  # 4 + 4 + 2 a question
    calls = judged["summary"]["calls"]
    assert calls["failed"] == 0
    # the refused requests are counted, and named as sent again
    refused = server.state.refused_n
    assert calls["made"] == QUESTIONS * 3 + refused
    assert calls["retries"] == {"n_refused": refused}
    assert f"({refused} sent again: n_refused {refused})" in judged["output"]


def test_a_server_that_refuses_n_naming_no_limit_gets_one_run_a_request(
    tmp_path: Path, reference: list[tuple[str, int, float | None]]
) -> None:
    config = LlamaConfig(flavour="vllm", max_n=1, verdict=verdict)
    with LlamaServer(config) as server:
        judged = _judge(server, tmp_path, "words", "--concurrency", "1")
    assert _verdicts(judged["rows"]) == reference
    assert server.state.refused_n == 1  # learnt once, with one request in flight
    assert (server.completions, server.state.choices) == (QUESTIONS * RUNS, QUESTIONS * RUNS)


def test_a_server_that_ignores_n_answers_every_run_once(
    tmp_path: Path, reference: list[tuple[str, int, float | None]]
) -> None:
    with LlamaServer(LlamaConfig(flavour="ollama", verdict=verdict)) as server:
        judged = _judge(server, tmp_path, "ignored")
    assert _verdicts(judged["rows"]) == reference
    assert server.state.choices == QUESTIONS * RUNS and server.state.refused_n == 0


@pytest.mark.parametrize(
    ("body", "asked", "limit"),
    [
        ({"error": {"message": "Field 'n': Value must be between 1 <= value <= 4, but got 10"}},
         10, 4),
        ({"error": {"message": "'n' : number must be at most 1"}}, 3, 1),
        ({"error": {"message": "n must be <= 2", "param": "n"}}, 5, 2),
        ({"error": {"message": "only one choice", "param": "n"}}, 5, 1),
        # not about n: a context overflow, or a limit no smaller than what was asked
        ({"error": {"message": "the request exceeds the available context size"}}, 4, None),
        ({"error": {"message": "Invalid 'model'"}}, 4, None),
        ({"error": {"message": "Field 'n': Value must be between 1 <= value <= 1"}}, 1, None),
    ],
)  # fmt: skip
def test_the_limit_is_read_from_each_servers_words(
    body: dict[str, Any], asked: int, limit: int | None
) -> None:
    assert refused_choices(400, body, asked) == limit
