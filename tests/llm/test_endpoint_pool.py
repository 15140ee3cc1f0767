"""An endpoint pool: calls spread over servers of one model, never more in flight at a server
than its slots, the same answers as one server gives; a server stopped mid-pass leaves
the pool and no answer is lost (its failures counted by endpoint); the pool file's bad
input is one line; a pool mixing models is refused; shards get their share."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.benchmarks.answer_prompt import default_answer_prompt
from locoscore.cli import app
from locoscore.errors import InputError
from locoscore.llm.endpoint_pool import EndpointPool, PoolMember, load_pool, pool_of_urls
from locoscore.run.answerer import Answerer, AnswerSettings, resolve_answer_step
from locoscore.run.placed_context import PlacedContext
from locoscore.run.store import RunStore
from locoscore.testing.llama_server import LlamaConfig, LlamaServer

PROMPTS = [f"Question {i}: what did Caroline bring on day {i}?" for i in range(36)]
NO_CONTEXT = PlacedContext((), "", 0, 0)
MODEL = "smollm2-135m"  # the stand-in's own name


def hashed(prompt: str) -> str:
    return "answer " + hashlib.sha256(prompt.encode()).hexdigest()[:8]


def verdict_of_answer(prompt: str) -> str:
    """From the judged answer's hash (the judge prompt has a fresh fence token each call)."""
    found = re.search(r"answer ([0-9a-f]{8})", prompt)
    return "CORRECT" if found and int(found.group(1), 16) % 2 else "WRONG"


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[LlamaServer]]:
    monkeypatch.setenv("OPENAI_API_KEY", "not-needed")
    config = LlamaConfig(slots=2, service_s=0.02, answer=hashed, verdict=verdict_of_answer)
    started = [LlamaServer(config).start() for _ in range(3)]
    try:
        yield started
    finally:
        for server in started:
            server.stop()


def _answer(
    settings: AnswerSettings, store: RunStore, stop: LlamaServer | None = None
) -> tuple[Answerer, list[str | None]]:
    answerer = Answerer(resolve_answer_step(settings, default_answer_prompt()), store)

    async def one(prompt: str) -> str | None:
        answer = await answerer.answer(prompt, NO_CONTEXT)
        return answer.text if answer.error is None else None

    async def go() -> list[str | None]:
        tasks = [asyncio.ensure_future(one(p)) for p in PROMPTS]
        if stop is not None:  # stopped once it has answered a few
            while stop.completions < 3:
                await asyncio.sleep(0.005)
            await asyncio.to_thread(stop.stop)
        texts = await asyncio.gather(*tasks)
        await answerer.aclose()
        return texts

    return answerer, asyncio.run(go())


def _settings(urls: list[str], **extra: float) -> AnswerSettings:
    return AnswerSettings(
        provider="openai-compatible",
        model=MODEL,
        base_url=urls[0] if len(urls) == 1 else None,
        pool=pool_of_urls(urls, "--answer-base-url"),
        retry_base_delay_s=0.01,
        **extra,  # type: ignore[arg-type]
    )


def test_a_pool_answers_as_one_server_never_over_any_servers_slots(
    servers: list[LlamaServer], tmp_path: Path
) -> None:
    urls = [s.openai_url for s in servers]
    _, alone = _answer(_settings(urls[:1]), RunStore(tmp_path / "one.sqlite"))
    for server in servers:
        server.state.peak_in_flight = 0
    answerer, pooled = _answer(_settings(urls), RunStore(tmp_path / "pool.sqlite"))
    assert pooled == alone and None not in alone
    assert len(set(alone)) == len(PROMPTS)  # each its own prompt's answer
    assert [s.state.peak_in_flight for s in servers] == [2, 2, 2]  # each used, none over
    described = answerer.concurrency()
    assert described["source"] == "a pool of 3 endpoints" and described["max"] == 6
    endpoints = described["endpoints"]
    assert [e["url"] for e in endpoints] == urls
    assert sum(e["answered"] for e in endpoints) == len(PROMPTS)
    assert all(e["slots"] == 2 and e["failures"] == {} for e in endpoints)
    signature = answerer.step.signature
    assert "|endpoint:pool|model:smollm2-135m|" in signature
    assert answerer.step.to_json()["endpoint"]["members"] == urls


def test_a_stopped_server_leaves_the_pool_and_no_answer_is_lost(
    servers: list[LlamaServer], tmp_path: Path
) -> None:
    urls = [s.openai_url for s in servers]
    answerer, texts = _answer(_settings(urls), RunStore(tmp_path / "s.sqlite"), stop=servers[1])
    assert None not in texts and len(texts) == len(PROMPTS)
    endpoints = {e["url"]: e for e in answerer.concurrency()["endpoints"]}
    stopped = endpoints[urls[1]]
    assert sum(stopped["failures"].values()) >= 1 and stopped["taken_out"] >= 1
    assert stopped["answered"] >= 3
    others = [endpoints[u] for u in urls if u != urls[1]]
    assert all(e["failures"] == {} for e in others)
    assert sum(e["answered"] for e in endpoints.values()) == len(PROMPTS)
    assert max(s.state.peak_in_flight for s in servers) <= 2


def _pool_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pool.toml"
    path.write_text(text)
    return path


def test_the_pool_file_and_its_bad_input(tmp_path: Path) -> None:
    pool = load_pool(
        _pool_file(
            tmp_path,
            '[[endpoint]]\nbase_url = "http://node1:8000/v1"\nmodel = "m"\nweight = 2\n'
            'shard = 0\n\n[[endpoint]]\nbase_url = "http://node2:8000/v1/"\n'
            'key_env = "NODE2_KEY"\nconcurrency = 8\nshard = 1\n',
        )
    )
    assert [m.url for m in pool.members] == ["http://node1:8000/v1", "http://node2:8000/v1"]
    assert pool.members[0].weight == 2.0 and pool.members[1].concurrency == 8
    # --shard I/N: the pool file gives shard I its endpoint
    assert [m.url for m in pool.for_shard(1, 2).members] == ["http://node2:8000/v1"]
    with pytest.raises(InputError, match="a pool mixing models"):
        pool.check_model("other")
    cases = {
        '[[endpoint]]\nmodel = "m"\n': "record endpoint 0, field 'base_url': missing",
        '[[endpoint]]\nbase_url = "http://a:1"\nweight = 0\n': "field 'weight': must be more",
        '[[endpoint]]\nbase_url = "http://a:1"\nslots = 2\n': "field 'slots': unknown key",
        '[[endpoint]]\nbase_url = "http://a:1"\n[[endpoint]]\nbase_url = "http://A:1/"\n': (
            "http://a:1 is in the pool twice"
        ),
        "endpoint = 3\n": "no [[endpoint]] entries",
        "[[endpoint\n": "not valid TOML",
    }
    for text, words in cases.items():
        with pytest.raises(InputError) as refused:
            load_pool(_pool_file(tmp_path, text))
        assert words in str(refused.value) and "pool.toml" in str(refused.value), text


def test_shards_share_a_pool() -> None:
    pool = EndpointPool(tuple(PoolMember(f"http://n{i}:80/v1") for i in range(4)), "x")
    # enough servers to go round: each shard its own, whole
    assert [m.url for m in pool.share(1, 2).members] == ["http://n1/v1", "http://n3/v1"]
    assert not pool.share(1, 2).shared
    # fewer servers than shards: every one shared, its capacity divided
    few = EndpointPool(pool.members[:2], "x").share(0, 3)
    assert [m.divide for m in few.members] == [3, 3] and few.shared


def test_run_through_a_pool_records_it_and_a_pool_mixing_models_is_refused(
    servers: list[LlamaServer], tmp_path: Path
) -> None:
    args = [
        "run", "--system", "bm25", "--answer-provider", "openai-compatible", "--answer-model",
        MODEL, "--dataset", "/work/shared/data/locomo10.json", "--conversations", "conv-26",
        "--limit", "12", "--no-progress", "--skip-probe",
    ]  # fmt: skip
    urls = [a for s in servers for a in ("--answer-base-url", s.openai_url)]
    done = CliRunner().invoke(app, [*args, *urls, "--out", str(tmp_path / "r")])
    assert done.exit_code == 0, done.output
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert run["answer"]["endpoint"]["members"] == [s.openai_url for s in servers]
    assert "|endpoint:pool|" in run["signature"]
    assert len(run["answer_calls"]["concurrency"]["endpoints"]) == 3

    # the judge through the pool: the J of one server, no server over its slots
    def judge(out: str, *base_urls: str) -> dict[str, Any]:
        done = CliRunner().invoke(
            app,
            [
                "judge",
                str(tmp_path / "r" / "predictions.jsonl"),
                "--out",
                str(tmp_path / out),
                "--protocol",
                "binary",
                "--provider",
                "openai-compatible",
                "--model",
                MODEL,
                "--runs",
                "1",
                "--no-progress",
                *(a for u in base_urls for a in ("--base-url", u)),
            ],
        )
        assert done.exit_code == 0, done.output
        return json.loads((tmp_path / out / "summary.json").read_text())["judge"]

    alone = judge("j1", servers[0].openai_url)
    for server in servers:
        server.state.peak_in_flight = 0
    pooled = judge("jp", *(s.openai_url for s in servers))
    assert pooled["overall"] == alone["overall"] and 0 < alone["overall"]["mean"] < 100
    assert max(s.state.peak_in_flight for s in servers) <= 2
    assert "|endpoint:pool|" in pooled["signature"]
    answered = sum(e["answered"] for e in pooled["concurrency"]["endpoints"])
    assert answered == pooled["calls"]["judgments"] > 0
    with LlamaServer(LlamaConfig(model="another-model")) as other:
        mixed = CliRunner().invoke(
            app, [*args, *urls, "--answer-base-url", other.openai_url, "--out", str(tmp_path / "m")]
        )
    assert mixed.exit_code == 2, mixed.output
    assert "a pool mixing models" in mixed.output and "another-model" in mixed.output
    assert not (tmp_path / "m").exists()


def test_ray_tasks_get_their_servers_with_all_their_slots(tmp_path: Path) -> None:
    from locoscore.judge.settings import JudgeSettings
    from locoscore.run.ray_executor import judge_share, task_concurrency
    from locoscore.run.settings import RunSettings

    three = EndpointPool(tuple(PoolMember(f"http://n{i}:80/v1") for i in range(3)), "x")
    run = RunSettings("bm25", tmp_path, concurrency=60, answer=AnswerSettings(pool=three))
    # a server each: the task's calls are bound by its servers' slots, not a share of 60
    assert [task_concurrency(run, i, 3) for i in range(3)] == [60, 60, 60]
    one = EndpointPool(three.members[:1], "x")
    shared = RunSettings("bm25", tmp_path, concurrency=60, answer=AnswerSettings(pool=one))
    assert task_concurrency(shared, 0, 3) == 20  # one server for three: its share
    judge = judge_share(JudgeSettings(pool=three, concurrency=30), 2, 3)
    assert [m.url for m in judge.pool.members] == ["http://n2/v1"] and judge.concurrency == 30
    assert judge_share(JudgeSettings(concurrency=30), 0, 3).concurrency == 10  # a key's
