"""Graphiti (graphiti-core on embedded Kùzu) run for real, offline, against the fake provider:
one graph per conversation, episodes at their session's date, facts dated by session, every
call metered, resume after an interruption, and the integration probe.

The fake extracts one fact per turn (the turn as sent, "Speaker: text") between the two
speakers (`locoscore.testing._graphiti_wire`), so what Graphiti stores is predictable."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mem0_helpers import conversation, requests_to, run
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.data.conversation import Conversation, Query
from locoscore.systems.base import Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.registry import make_system
from locoscore.testing import FakeConfig, FakeProvider
from locoscore.testing._verdicts import all_text, estimate_tokens

installed = importlib.util.find_spec("graphiti_core") is not None
pytestmark = [
    pytest.mark.skipif(not installed, reason="the graphiti extra is not installed"),
    pytest.mark.xdist_group("graphiti"),  # one worker makes the session's runs
]
DIMS = 64  # the fake's vectors when a request names no size (Graphiti's embedder names none)
API_KEY = "sk-graphiti-test-DO-NOT-LOG-7e1a"
CHAT, EMBEDDINGS = "/v1/chat/completions", "/v1/embeddings"


@pytest.fixture
def fp() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(embedding_dims=DIMS)) as server:
        yield server


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)


def _options(fp: FakeProvider) -> list[str]:
    return [
        f"llm_base_url={fp.openai_url}",
        f"embedder_base_url={fp.openai_url}",
        f"embedding_dims={DIMS}",
    ]


def make_graphiti(state_dir: Path, fp: FakeProvider) -> Any:
    options = dict(pair.split("=", 1) for pair in _options(fp))
    return make_system("graphiti", options, SystemContext(state_dir))


async def _ingest(system: Any, conv: Conversation) -> list[Usage]:
    await system.reset(conv.conversation_id)
    return [await system.add(session) for session in conv.sessions]


def _query(conversation_id: str, text: str, top_k: int = 10) -> Query:
    return Query(conversation_id, f"{conversation_id}#q", text, top_k)


# Session scope: a module fixture is set up again whenever xdist interleaves another module's
# test on the worker; the runs are the expensive part, made once.
@pytest.fixture(scope="session")
def two_graphs(dataset: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """conv-26 and conv-30, three sessions each, ingested into one system; then searched."""
    convs = [conversation(dataset, cid, sessions=3) for cid in ("conv-26", "conv-30")]
    with pytest.MonkeyPatch.context() as env, FakeProvider(FakeConfig(embedding_dims=DIMS)) as fp:
        env.setenv("OPENAI_API_KEY", API_KEY)
        yield run(
            _ingest_and_search(make_graphiti(tmp_path_factory.mktemp("graphs"), fp), fp, convs)
        )


async def _ingest_and_search(system: Any, fp: FakeProvider, convs: list[Conversation]) -> Any:
    await system.start()
    fp.reset_counters()
    usages = {c.conversation_id: await _ingest(system, c) for c in convs}
    log = list(fp.requests_log)
    searches = {
        "support": await system.search(_query("conv-26", "LGBTQ support group")),
        "dance": await system.search(_query("conv-30", "dance studio business", top_k=5)),
        "leak": await system.search(_query("conv-30", "Caroline Melanie LGBTQ adoption")),
    }
    counts = {c.conversation_id: system.items_in(c.conversation_id) for c in convs}
    await system.aclose()
    return {"convs": convs, "usages": usages, "log": log, "searches": searches, "counts": counts}


def test_each_turn_becomes_a_fact_dated_by_its_session(two_graphs) -> None:
    result = two_graphs["searches"]["support"]
    conv26 = two_graphs["convs"][0]
    said = {t.render().strip(): (s.date_iso, s.date_raw) for s in conv26.sessions for t in s.turns}
    assert len(result.items) == 10
    top = result.items[0]
    assert top.text == (
        "Caroline: I went to a LGBTQ support group yesterday and it was so powerful."
    )
    assert (top.date_iso, top.date_raw) == ("2023-05-08T13:56", "1:56 pm on 8 May, 2023")
    for item in result.items:
        assert (item.date_iso, item.date_raw) == said[item.text]
        assert item.dia_ids is None  # a fact cannot say which turn it came from
    scores = [item.score for item in result.items]
    assert scores == sorted(scores, reverse=True)
    assert two_graphs["counts"] == {"conv-26": 18 + 17 + 23, "conv-30": 28 + 16 + 14}


def test_a_search_returns_only_its_own_conversations_facts(two_graphs) -> None:
    own = {t.render().strip() for s in two_graphs["convs"][1].sessions for t in s.turns}
    for key in ("dance", "leak"):
        items = two_graphs["searches"][key].items
        assert items and all(item.text in own for item in items)
    assert len(two_graphs["searches"]["dance"].items) == 5  # the run's top-k


def test_every_episode_is_one_extraction_at_its_sessions_reference_time(two_graphs) -> None:
    chats = [e for e in two_graphs["log"] if e["path"] == CHAT]
    extractions = [
        e for e in chats if e["body"]["response_format"]["json_schema"]["name"] == "ExtractedEdges"
    ]
    assert len(extractions) == 6  # one episode per session, never per turn
    times = []
    for entry in extractions:
        prompt = next(m["content"] for m in entry["body"]["messages"] if m["role"] == "user")
        times.append(prompt.split("<REFERENCE_TIME>\n", 1)[1].split("  #", 1)[0])
    assert times == [
        "2023-05-08 13:56:00+00:00", "2023-05-25 13:14:00+00:00", "2023-06-09 19:55:00+00:00",
        "2023-01-20 16:04:00+00:00", "2023-01-29 14:32:00+00:00", "2023-02-01 00:48:00+00:00",
    ]  # fmt: skip


def test_what_graphiti_spent_is_read_off_the_providers_replies(two_graphs) -> None:
    log = two_graphs["log"]
    usages = [u for per_conv in two_graphs["usages"].values() for u in per_conv]
    total = sum(usages, Usage())
    chats = [e for e in log if e["path"] == CHAT]
    embeddings = [e for e in log if e["path"] == EMBEDDINGS]
    assert total.calls == len(chats) + len(embeddings)
    assert total.input_tokens == sum(
        estimate_tokens(all_text(e["body"]["messages"])) for e in chats
    )
    assert total.embedding_tokens == sum(
        estimate_tokens(t)
        for e in embeddings
        for t in (
            [e["body"]["input"]] if isinstance(e["body"]["input"], str) else e["body"]["input"]
        )
    )
    assert all(u.calls > 0 and u.output_tokens > 0 for u in usages)
    expected = (
        total.input_tokens * 0.15 + total.output_tokens * 0.60 + total.embedding_tokens * 0.02
    ) / 1_000_000  # gpt-4o-mini and text-embedding-3-small list prices
    assert total.cost_usd == pytest.approx(expected, abs=1e-5)


def test_a_rerun_resumes_finished_conversations_and_redoes_an_interrupted_one(
    dataset: Any, fp: FakeProvider, tmp_path: Path
) -> None:
    done, cut = conversation(dataset, "conv-30", 2), conversation(dataset, "conv-26", 2)

    async def first_run() -> None:
        system = make_graphiti(tmp_path, fp)
        await _ingest(system, done)
        await system.reset(cut.conversation_id)
        await system.add(cut.sessions[0])  # then the process dies
        await system.aclose()

    run(first_run())
    fp.reset_counters()

    async def second_run() -> tuple[bool, bool, tuple[int, int], Any]:
        system = make_graphiti(tmp_path, fp)
        finished = await system.already_ingested(done)
        interrupted = await system.already_ingested(cut)
        usages = await _ingest(system, cut)
        counted = (sum(usages, Usage()).calls, len(fp.requests_log))
        found = await system.search(_query("conv-30", "Jon Gina dance"))
        await system.aclose()
        return finished, interrupted, counted, found

    finished, interrupted, counted, found = run(second_run())
    assert (finished, interrupted) == (True, False)
    assert counted[0] == counted[1] > 0  # every billed call of the re-ingestion counted
    extractions = [
        e["body"]["response_format"]["json_schema"]["name"]
        for e in requests_to(fp, CHAT)
        if e["body"]["response_format"]["json_schema"]["name"] == "ExtractedEdges"
    ]
    assert len(extractions) == 2  # conv-26's two sessions again, nothing of conv-30
    assert found.items and all(i.date_iso.startswith("2023-01") for i in found.items)
    assert [
        p for p in tmp_path.rglob("*") if p.is_file() and API_KEY.encode() in p.read_bytes()
    ] == []


def test_the_probe_passes_on_graphiti(fp: FakeProvider) -> None:
    options = [arg for pair in _options(fp) for arg in ("--system-option", pair)]
    result = CliRunner().invoke(app, ["probe", "--system", "graphiti", *options])
    assert result.exit_code == 0, result.output
    assert "all checks passed" in result.output
