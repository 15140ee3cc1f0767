"""The answer step's endpoint and served model: the answer cache keys on the endpoint, a
folder refuses a run through another one, run.json and the report name it, and a server
serving another model than asked is warned about and never priced."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from plain_openai_server import PlainOpenAIServer
from run_helpers import llm_args, run_cli

from locoscore.benchmarks.answer_prompt import default_answer_prompt
from locoscore.run.answerer import Answerer, AnswerSettings, resolve_answer_step
from locoscore.run.placed_context import PlacedContext
from locoscore.run.store import RunStore
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

PROMPTS = [f"Question {i}: what did Caroline bring?" for i in range(4)]
NO_CONTEXT = PlacedContext((), "", 0, 0)


def _answer_all(base_url: str, store: RunStore, served_model_check: bool = False) -> Answerer:
    step = resolve_answer_step(
        AnswerSettings(provider="openai-compatible", model="fake-answerer", base_url=base_url),
        default_answer_prompt(),
    )
    answerer = Answerer(step, store)

    async def go() -> None:
        for prompt in PROMPTS:
            answer = await answerer.answer(prompt, NO_CONTEXT)
            assert answer.error is None
        await answerer.aclose()

    asyncio.run(go())
    return answerer


def test_the_answer_cache_is_keyed_by_the_endpoint(fake: FakeProvider, tmp_path: Path) -> None:
    store = RunStore(tmp_path / "run_state.sqlite")
    _answer_all(fake.openai_url, store)
    assert fake.generation_calls == len(PROMPTS)
    with FakeProvider(FakeConfig(answer=lambda prompt: "x")) as other:
        answerer = _answer_all(other.openai_url, store)
        assert other.generation_calls == len(PROMPTS)  # nothing from the first server
        assert answerer.calls_cached == 0
    fake.reset_counters()
    assert _answer_all(fake.openai_url + "/", store).calls_cached == len(PROMPTS)
    assert fake.generation_calls == 0  # the same endpoint, however written
    store.close()


def test_answers_cached_from_another_served_model_are_asked_again(
    fake: FakeProvider, tmp_path: Path
) -> None:
    store = RunStore(tmp_path / "run_state.sqlite")
    _answer_all(fake.openai_url, store)
    fake.config.served_model = "another-model"
    fake.reset_counters()
    step = resolve_answer_step(
        AnswerSettings(provider="openai-compatible", model="fake-answerer",
                       base_url=fake.openai_url),
        default_answer_prompt(),
    )  # fmt: skip
    answerer = Answerer(step, store)

    async def go() -> list[Any]:
        new = await answerer.answer("a question never asked before", NO_CONTEXT)
        old = [await answerer.answer(p, NO_CONTEXT) for p in PROMPTS]
        await answerer.aclose()
        return [new, *old]

    answers = asyncio.run(go())
    assert fake.generation_calls == 1 + len(PROMPTS)
    assert {a.served_model for a in answers} == {"another-model"}
    assert answerer.served.models == ("another-model",)
    store.close()


def test_a_folder_refuses_a_run_through_another_endpoint(
    fake: FakeProvider, locomo_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    assert run_cli(*llm_args(fake, locomo_path, out, "--conversations", "conv-30")).exit_code == 0
    with FakeProvider(FakeConfig()) as other:
        result = run_cli(*llm_args(other, locomo_path, out, "--conversations", "conv-30"))
        assert result.exit_code == 2
        assert other.generation_calls == 0
        assert f"endpoint:127.0.0.1:{fake.port}" in result.output
        assert f"endpoint:127.0.0.1:{other.port}" in result.output


def test_a_local_server_serving_another_model_is_recorded_warned_and_not_priced(
    locomo_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    with PlainOpenAIServer("smollm2-135m") as server:
        result = run_cli(
            "--system", "bm25", "--out", str(out), "--dataset", str(locomo_path),
            "--conversations", "conv-30", "--answer-provider", "openai-compatible",
            "--answer-model", "gpt-4o-mini", "--answer-base-url", server.url,
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    run = json.loads((out / "run.json").read_text())
    port = server.url.split(":")[2].split("/")[0]
    assert (
        f"|answer:openai-compatible|endpoint:127.0.0.1:{port}|model:gpt-4o-mini"
        "|served:smollm2-135m|prompt:"
    ) in run["signature"]
    assert run["answer"]["endpoint"] == {"url": server.url, "default": False}
    assert run["answer"]["served"] == {"models": ["smollm2-135m"], "fake": False}
    assert run["answer_calls"]["made"] == server.calls > 0
    assert run["answer_calls"]["cost_usd"] is None  # not $0, and not gpt-4o-mini's price
    assert run["answer_calls"]["cost_unknown_reason"] == (
        "served smollm2-135m, not gpt-4o-mini: no price applies"
    )
    assert "; cost n/a" in result.output and "$0.0000" not in result.output
    assert f"answered through {server.url} (not the provider's API)" in result.output
    mismatch = [w for w in run["warnings"] if "served smollm2-135m" in w]
    assert len(mismatch) == 1 and mismatch[0].startswith("answers: asked for gpt-4o-mini")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["warnings"] == run["warnings"]
    report = (out / "report.md").read_text()
    assert f"answered through {server.url} (not the provider's API)" in report
    assert "the server said it served smollm2-135m" in report
    assert "fake" not in report and "|fake" not in run["signature"]
    # a rerun of the finished run is the same run (served: is no part of its identity)
    rerun = run_cli(
        "--system", "bm25", "--out", str(out), "--dataset", str(locomo_path),
        "--conversations", "conv-30", "--answer-provider", "openai-compatible",
        "--answer-model", "gpt-4o-mini", "--answer-base-url", server.url,
    )  # fmt: skip
    assert rerun.exit_code == 0, rerun.output
