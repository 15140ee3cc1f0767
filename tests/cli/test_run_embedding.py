"""`locoscore run --system embedding` end to end against the fake provider, on conv-26."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing import FakeConfig, FakeProvider

runner = CliRunner()
CONV_26_TURNS = 419
CONV_26_SESSIONS = 19
CONV_26_QUESTIONS = 199  # all distinct texts


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(log_requests=False)) as provider:
        yield provider


def run_args(locomo_path: Path, out: Path, base_url: str) -> list[str]:
    return [
        "run",
        "--system",
        "embedding",
        "--system-option",
        f"base_url={base_url}",
        "--answer-provider",
        "extractive",
        "--conversations",
        "conv-26",
        "--dataset",
        str(locomo_path),
        "--out",
        str(out),
        "--no-progress",
        "--skip-probe",  # the counts below are the run's own requests
    ]


def test_run_ingests_once_embeds_each_text_once_and_retrieves_the_evidence(
    fake: FakeProvider, locomo_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, run_args(locomo_path, out, fake.openai_url))
    assert result.exit_code == 0, result.output

    # The start check, each turn once (one request per session), each question once.
    assert fake._core.stats()["embedding_inputs"] == 1 + CONV_26_TURNS + CONV_26_QUESTIONS
    assert fake.requests == 1 + CONV_26_SESSIONS + CONV_26_QUESTIONS
    run = json.loads((out / "run.json").read_text())
    ingestion = run["ingestion"]["per_conversation"]["conv-26"]
    assert ingestion["usage"]["calls"] == CONV_26_SESSIONS and ingestion["error"] is None
    assert "run:embedding|opts:granularity=turn,model=text-embedding-3-small|" in run["signature"]
    records = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(records) == CONV_26_QUESTIONS and all(r["error"] is None for r in records)
    first = records[0]
    assert first["question"] == "When did Caroline go to the LGBTQ support group?"
    assert first["retrieved"][0]["dia_ids"] == ["D1:3"] and first["evidence_recall"] == 1.0
    assert first["prediction"] == (
        "Caroline: I went to a LGBTQ support group yesterday and it was so powerful."
    )
    assert (out / "system_state" / "embeddings.sqlite").is_file()


def test_run_with_an_unreachable_embedding_server_exits_2_writing_nothing(
    locomo_path: Path, tmp_path: Path
) -> None:
    with socket.socket() as sock:  # bound then closed: connection refused, no network used
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    out = tmp_path / "out"
    result = runner.invoke(app, run_args(locomo_path, out, url))
    assert result.exit_code == 2
    assert f"embedding server {url}, model text-embedding-3-small: cannot connect" in result.output
    assert "Traceback" not in result.output and not out.exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["backend=gpu"], "--system-option backend=gpu: embedding expects one of api, local"),
        (
            ["backend=local", "model=/no/such/model"],
            "--system-option model=/no/such/model: the model path does not exist",
        ),
        (
            ["backend=local", "model=./missing-model"],
            "--system-option model=./missing-model: the model path does not exist",
        ),
        (["backend=local"], "--system-option backend=local needs model=NAME_OR_PATH"),
        (
            ["backend=local", "model=x", "dimensions=32"],
            "--system-option dimensions: applies to backend=api only (this is backend=local)",
        ),
        (
            ["device=cuda"],
            "--system-option device: applies to backend=local only (this is backend=api)",
        ),
        (["chunk_tokens=0"], "--system-option chunk_tokens=0: expected a positive value"),
        (["chunk_tokens=-128"], "--system-option chunk_tokens=-128: expected a positive value"),
        (["chunk_tokens=big"], "--system-option chunk_tokens=big: expected an integer"),
        (
            ["chunk_tokens=256", "granularity=session"],
            "--system-option chunk_tokens: replaces granularity (give one of the two)",
        ),
    ],
)
def test_bad_embedding_options_exit_2_with_one_line_writing_nothing(
    options: list[str], message: str, locomo_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    args = run_args(locomo_path, out, "http://127.0.0.1:9/v1")[5:]  # without base_url
    for option in options:
        args += ["--system-option", option]
    result = runner.invoke(app, ["run", "--system", "embedding", *args])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {message}"), result.output
    assert "Traceback" not in result.output and not out.exists()


def test_a_chunked_run_retrieves_chunks_and_counts_the_turns_they_hold_as_evidence(
    fake: FakeProvider, locomo_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    args = run_args(locomo_path, out, fake.openai_url)
    args += ["--system-option", "chunk_tokens=256", "--top-k", "2"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    run = json.loads((out / "run.json").read_text())
    assert (
        "opts:chunk_tokens=256,granularity=chunk,model=text-embedding-3-small|top_k:2|"
        in (run["signature"])
    )
    # conv-26 is 16,801 cl100k tokens as sessions in order: 65 full chunks and a last one.
    assert fake._core.stats()["embedding_inputs"] == 1 + 66 + CONV_26_QUESTIONS
    records = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    for record in records:
        assert len(record["retrieved"]) == 2
        held = {d for item in record["retrieved"] for d in item["dia_ids"]}
        evidence = record["evidence"]
        if evidence:
            expected = len([d for d in evidence if d in held]) / len(evidence)
            assert record["evidence_recall"] == pytest.approx(expected)
