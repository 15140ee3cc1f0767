"""The answer step against the fake provider: the prompt's contents, held constant, cached."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from run_helpers import answer_requests, llm_args, predictions, run_cli

from locoscore.benchmarks.answer_prompt import default_answer_prompt
from locoscore.benchmarks.locomo.data.conversations import locomo_conversations


def _prompts(fake: Any) -> list[str]:
    return [e["body"]["messages"][-1]["content"] for e in answer_requests(fake)]


def test_full_context_prompt_holds_every_session_date_speaker_and_caption_of_its_own_conversation(
    fake: Any, locomo_path: Path, dataset: Any, tmp_path: Path
) -> None:
    out = tmp_path / "fc"
    args = llm_args(fake, locomo_path, out, "--conversations", "conv-30")
    args[args.index("bm25")] = "full-context"
    result = run_cli(*args, "--exclude-adversarial")
    assert result.exit_code == 0, result.output
    prompts = _prompts(fake)
    assert len(prompts) == 81  # conv-30's 105 questions without its 24 adversarial ones
    conv30, conv26 = (
        next(c for c in locomo_conversations(dataset) if c.conversation_id == cid)
        for cid in ("conv-30", "conv-26")
    )
    prompt = prompts[0]
    for session in conv30.sessions:
        assert f"(session of {session.date_raw}) Session {session.index} (" in prompt
        for turn in session.turns:
            assert turn.render() in prompt  # speaker, words and caption, verbatim
    assert "Jon:" in prompt and "Gina:" in prompt
    # no other conversation's text: conv-26's speakers never appear
    assert "Caroline" not in prompt and "Melanie" not in prompt
    assert not any(t.render() in prompt for s in conv26.sessions for t in s.turns[:5])


def test_every_prompt_is_the_default_template_filled_in(
    fake: Any, locomo_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    result = run_cli(*llm_args(fake, locomo_path, out, "--conversations", "conv-30"))
    assert result.exit_code == 0, result.output
    template = default_answer_prompt().text
    head, tail = template.split("{context}")[0], template.split("{question}")[1]
    records = predictions(out)
    prompts = _prompts(fake)
    assert len(prompts) == len(records) == 105
    for prompt in prompts:
        assert prompt.startswith(head) and prompt.endswith(tail)
    # the fake answers with the first memory's words: the answer step received the context
    first = records[0]
    assert first["prediction"] == first["retrieved"][0]["text"]
    assert first["answer_latency_s"] > 0 and first["total_latency_s"] == pytest.approx(
        first["search_latency_s"] + first["answer_latency_s"], abs=2e-6
    )


def test_the_sampling_applied_is_temperature_zero_and_recorded(
    fake: Any, locomo_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    result = run_cli(*llm_args(fake, locomo_path, out, "--conversations", "conv-30"))
    assert result.exit_code == 0, result.output
    bodies = [e["body"] for e in answer_requests(fake)]
    assert {b["temperature"] for b in bodies} == {0.0}
    assert {b["model"] for b in bodies} == {"fake-answerer"}
    assert all("response_format" not in b for b in bodies)
    run = json.loads((out / "run.json").read_text())
    prompt_hash = default_answer_prompt().version_hash
    assert (
        f"|answer:openai-compatible|endpoint:127.0.0.1:{fake.port}|model:fake-answerer"
        f"|served:fake-answerer|fake|prompt:{prompt_hash}|temp:0|" in run["signature"]
    )
    assert run["answer"]["endpoint"] == {"url": fake.openai_url, "default": False}


def test_a_rerun_of_a_finished_run_makes_no_call(
    fake: Any, locomo_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    args = llm_args(fake, locomo_path, out, "--conversations", "conv-30")
    assert run_cli(*args).exit_code == 0
    first = (out / "predictions.jsonl").read_text()
    fake.reset_counters()
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    assert answer_requests(fake) == []
    assert (out / "predictions.jsonl").read_text() == first


def test_the_answer_cache_is_keyed_by_the_context_so_a_new_budget_asks_again(
    fake: Any, locomo_path: Path, tmp_path: Path
) -> None:
    from locoscore.run.store import RunStore

    out = tmp_path / "run"
    assert run_cli(*llm_args(fake, locomo_path, out, "--conversations", "conv-30")).exit_code == 0
    keys = RunStore(out / "run_state.sqlite").answer_keys()
    # same questions, smaller budget: other prompts, so no stale answer may be reused
    other = tmp_path / "budget"
    fake.reset_counters()
    args = llm_args(
        fake, locomo_path, other, "--conversations", "conv-30", "--context-budget", "60"
    )
    assert run_cli(*args).exit_code == 0
    assert len(answer_requests(fake)) == 105
    assert keys.isdisjoint(RunStore(other / "run_state.sqlite").answer_keys())
    assert all(r["context_tokens"] <= 60 for r in predictions(other))


def test_the_answer_prompt_can_be_replaced_and_its_hash_is_recorded(
    fake: Any, locomo_path: Path, tmp_path: Path
) -> None:
    prompt = tmp_path / "mine.txt"
    prompt.write_text("Memories:\n{context}\nQ: {question}\nA:", encoding="utf-8")
    out = tmp_path / "run"
    args = llm_args(fake, locomo_path, out, "--conversations", "conv-30")
    result = run_cli(*args, "--answer-prompt", str(prompt))
    assert result.exit_code == 0, result.output
    assert all(p.startswith("Memories:\n[1] (session of ") for p in _prompts(fake))
    run = json.loads((out / "run.json").read_text())
    assert run["answer"]["prompt_name"] == "file:mine.txt"
    assert run["answer"]["prompt_hash"] != default_answer_prompt().version_hash


def test_the_seed_setup_answers_with_claude_through_the_messages_api(
    fake: Any, locomo_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789")
    out = tmp_path / "claude"
    result = run_cli(
        "--system", "bm25", "--out", str(out), "--dataset", str(locomo_path),
        "--conversations", "conv-30", "--exclude-adversarial",
        "--answer-provider", "anthropic", "--answer-model", "claude-opus-4-6",
        "--answer-base-url", fake.url,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    requests = [e for e in fake.requests_log if e["path"] == "/v1/messages"]
    assert len(requests) == 81
    assert {e["body"]["temperature"] for e in requests} == {0.0}
    assert {e["headers"]["anthropic-version"] for e in requests} == {"2023-06-01"}
    assert all("output_config" not in e["body"] for e in requests)
    first = predictions(out)[0]
    assert first["prediction"] == first["retrieved"][0]["text"]
    run = json.loads((out / "run.json").read_text())
    assert (
        f"|answer:anthropic|endpoint:127.0.0.1:{fake.port}|model:claude-opus-4-6"
        "|served:claude-opus-4-6|fake|" in run["signature"]
    )
    assert "|temp:0|api:2023-06-01|" in run["signature"]
