"""Acceptance: `locoscore run --system mem0` end to end on two real conversations, mem0 run
for real against the fake provider (its extraction and embeddings), extractive answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mem0_helpers import API_KEY, DIMS, new_messages_section, requires_mem0, user_prompt
from typer.testing import CliRunner

from locoscore.benchmarks.locomo.data.conversations import locomo_conversations
from locoscore.cli import app
from locoscore.testing import FakeConfig, FakeProvider
from locoscore.testing._verdicts import all_text, estimate_tokens

pytestmark = requires_mem0
CONVERSATIONS = ("conv-26", "conv-30")


@pytest.fixture(scope="module")
def mem0_run(
    tmp_path_factory: pytest.TempPathFactory, locomo_path: Path
) -> tuple[Path, list[dict[str, Any]]]:
    out = tmp_path_factory.mktemp("mem0-run")
    with pytest.MonkeyPatch.context() as env, FakeProvider(FakeConfig(embedding_dims=DIMS)) as fp:
        env.setenv("OPENAI_API_KEY", API_KEY)
        env.delenv("OPENAI_BASE_URL", raising=False)
        result = CliRunner().invoke(
            app,
            [
                "run", "--system", "mem0", "--out", str(out), "--dataset", str(locomo_path),
                "--conversations", ",".join(CONVERSATIONS), "--answer-provider", "extractive",
                "--system-option", f"llm_base_url={fp.openai_url}",
                "--system-option", f"embedder_base_url={fp.openai_url}",
                "--system-option", f"embedding_dims={DIMS}",
                # the request log below is the run's own (test_the_probe_passes_on_mem0
                # probes mem0 on its synthetic pair)
                "--skip-probe", "--no-progress",
            ],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        return out, fp.requests_log


def _predictions(out: Path) -> list[dict[str, Any]]:
    lines = (out / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _conversations(dataset: Any) -> list[Any]:
    return [c for c in locomo_conversations(dataset) if c.conversation_id in CONVERSATIONS]


def test_every_question_is_answered_from_mem0s_memories(mem0_run, dataset: Any) -> None:
    out, _ = mem0_run
    records = _predictions(out)
    assert len(records) == 199 + 105
    assert all(r["error"] is None for r in records)
    first = records[0]
    assert first["question_id"] == "conv-26#0"
    assert first["prediction"] == first["retrieved"][0]["text"]
    assert first["prediction"] == (
        "Caroline: I went to a LGBTQ support group yesterday and it was so powerful."
    )


def test_the_request_log_shows_one_extraction_per_session_at_its_date(
    mem0_run, dataset: Any
) -> None:
    _, log = mem0_run
    sessions = {
        tuple(f"user: {t.render()}" for t in s.turns): s
        for c in _conversations(dataset)
        for s in c.sessions
    }
    chats = [e for e in log if e["path"] == "/v1/chat/completions"]
    assert len(sessions) == len(chats) == 19 + 19
    seen = []
    for entry in chats:
        prompt = user_prompt(entry)
        session = sessions[tuple(new_messages_section(prompt))]
        assert f"Observation Date: {session.date_iso[:10]}" in prompt.splitlines()
        seen.append((session.conversation_id, session.index))
    assert len(set(seen)) == 38


def test_retrieved_memories_carry_the_date_of_their_session(mem0_run, dataset: Any) -> None:
    out, _ = mem0_run
    date_of = {
        (c.conversation_id, t.render()): (s.date_iso, s.date_raw)
        for c in _conversations(dataset)
        for s in c.sessions
        for t in s.turns
    }
    checked = 0
    for record in _predictions(out):
        for item in record["retrieved"]:
            key = (record["sample_id"], item["text"])
            assert key in date_of, "an item of another conversation, or not a stored turn"
            assert (item["date_iso"], item["date_raw"]) == date_of[key]
            assert item["dia_ids"] is None  # mem0 cannot say which turn a memory came from
            checked += 1
    assert checked > 2000


def test_run_json_reports_what_mem0_spent_per_conversation(mem0_run) -> None:
    out, log = mem0_run
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["signature"].startswith("run:mem0|opts:")
    for part in ("embedding_dims=64", "infer=true", "llm_model=gpt-4o-mini", "mem0ai=2.2."):
        assert part in run["signature"]
    ingestion = run["ingestion"]
    for conversation_id in CONVERSATIONS:
        usage = ingestion["per_conversation"][conversation_id]["usage"]
        assert usage["calls"] == 19 * 3  # per session: lookup embedding, extraction, vectors
        assert usage["input_tokens"] > 19 * 5000  # mem0's extraction prompt, every session
        assert usage["output_tokens"] > 0 and usage["embedding_tokens"] > 0
        expected = (
            usage["input_tokens"] * 0.15
            + usage["output_tokens"] * 0.60
            + usage["embedding_tokens"] * 0.02
        ) / 1_000_000  # gpt-4o-mini and text-embedding-3-small list prices
        assert usage["cost_usd"] == pytest.approx(expected, abs=1e-6)
    assert ingestion["totals"]["calls"] == 114
    chats = [e for e in log if e["path"] == "/v1/chat/completions"]
    assert ingestion["totals"]["input_tokens"] == sum(
        estimate_tokens(all_text(e["body"]["messages"])) for e in chats
    )


@pytest.mark.parametrize(
    ("option", "unset_key", "message"),
    [
        ("store=disk", False, "expects one of memory, folder"),
        ("infer=true", True, "set OPENAI_API_KEY"),
    ],
)
def test_bad_input_stops_the_run_with_one_line_and_nothing_written(
    tmp_path: Path, locomo_path: Path, option: str, unset_key: bool, message: str
) -> None:
    out = tmp_path / "out"
    with pytest.MonkeyPatch.context() as env, FakeProvider(FakeConfig(embedding_dims=DIMS)) as fp:
        env.setenv("OPENAI_API_KEY", API_KEY)
        if unset_key:
            env.delenv("OPENAI_API_KEY")
        result = CliRunner().invoke(
            app,
            [
                "run", "--system", "mem0", "--out", str(out), "--dataset", str(locomo_path),
                "--conversations", "conv-30", "--answer-provider", "extractive",
                "--system-option", f"llm_base_url={fp.openai_url}",
                "--system-option", f"embedder_base_url={fp.openai_url}",
                "--system-option", option, "--no-progress",
            ],
        )  # fmt: skip
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and message in errors[0]
    assert "Traceback" not in result.output
    assert not out.exists()


def test_the_probe_passes_on_mem0(locomo_path: Path, tmp_path: Path) -> None:
    with pytest.MonkeyPatch.context() as env, FakeProvider(FakeConfig(embedding_dims=DIMS)) as fp:
        env.setenv("OPENAI_API_KEY", API_KEY)
        env.delenv("OPENAI_BASE_URL", raising=False)
        result = CliRunner().invoke(
            app,
            [
                "probe", "--system", "mem0",
                "--system-option", f"llm_base_url={fp.openai_url}",
                "--system-option", f"embedder_base_url={fp.openai_url}",
                "--system-option", f"embedding_dims={DIMS}",
            ],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "all checks passed" in result.output
