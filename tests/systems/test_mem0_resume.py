"""Resume with a folder store: a fully ingested conversation is recognised on the next run
and not ingested again; anything less (partial, other settings, a memory store) is."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mem0_helpers import (
    API_KEY,
    DIMS,
    conversation,
    ingest,
    make_mem0,
    requests_to,
    requires_mem0,
    run,
)

from locoscore.data.conversation import Conversation
from locoscore.testing import FakeConfig, FakeProvider

pytestmark = requires_mem0


@pytest.fixture
def fp() -> Iterator[FakeProvider]:
    with FakeProvider(FakeConfig(embedding_dims=DIMS)) as server:
        yield server


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)


def _first_run(system: Any, conv: Conversation) -> Any:
    async def scenario() -> Any:
        await ingest(system, conv)
        items = await system.stored_items(conv.conversation_id)
        await system.aclose()
        return items

    return run(scenario())


def test_a_folder_store_resumes_without_ingesting_again(dataset: Any, fp, tmp_path) -> None:
    conv = conversation(dataset, "conv-26", sessions=2)
    before = _first_run(make_mem0(tmp_path, fp, store="folder"), conv)
    fp.reset_counters()
    rerun = make_mem0(tmp_path, fp, store="folder")

    async def scenario() -> tuple[bool, Any]:
        done = await rerun.already_ingested(conv)
        items = await rerun.stored_items("conv-26")
        await rerun.aclose()
        return done, items

    done, after = run(scenario())
    assert done is True
    assert len(before) == 18 + 17
    assert sorted(after, key=repr) == sorted(before, key=repr)
    assert rerun.items_in("conv-26") == 35
    assert fp.requests_log == []  # nothing was sent again


def test_the_checkpoint_records_each_conversation_once_complete(dataset: Any, fp, tmp_path) -> None:
    conv = conversation(dataset, "conv-30", sessions=2)
    system = make_mem0(tmp_path, fp, store="folder")

    async def scenario() -> list[bool]:
        await system.reset("conv-30")
        await system.add(conv.sessions[0])
        partial = await system.already_ingested(conv)
        await system.add(conv.sessions[1])
        complete = await system.already_ingested(conv)
        await system.reset("conv-30")
        after_reset = await system.already_ingested(conv)
        await system.aclose()
        return [partial, complete, after_reset]

    assert run(scenario()) == [False, True, False]


def test_a_conversation_with_a_new_session_is_ingested_again(dataset: Any, fp, tmp_path) -> None:
    _first_run(make_mem0(tmp_path, fp, store="folder"), conversation(dataset, "conv-26", 2))
    longer = conversation(dataset, "conv-26", sessions=3)
    assert run(make_mem0(tmp_path, fp, store="folder").already_ingested(longer)) is False


def test_other_ingestion_settings_do_not_resume(dataset: Any, fp, tmp_path) -> None:
    conv = conversation(dataset, "conv-26", sessions=1)
    _first_run(make_mem0(tmp_path, fp, store="folder"), conv)
    other = make_mem0(tmp_path, fp, store="folder", infer="false")
    assert run(other.already_ingested(conv)) is False


def test_a_memory_store_never_resumes(dataset: Any, fp, tmp_path) -> None:
    conv = conversation(dataset, "conv-26", sessions=1)
    _first_run(make_mem0(tmp_path, fp), conv)
    assert run(make_mem0(tmp_path, fp).already_ingested(conv)) is False
    assert len(requests_to(fp, "/v1/chat/completions")) == 1


def test_the_runs_ingestion_skips_a_conversation_stored_by_an_earlier_run(
    dataset: Any, fp, tmp_path
) -> None:
    from locoscore.run.ingest import ingest_conversation

    conv = conversation(dataset, "conv-30", sessions=2)

    async def one_run() -> Any:
        system = make_mem0(tmp_path, fp, store="folder")
        try:
            return await ingest_conversation(system, conv)
        finally:
            await system.aclose()

    first = run(one_run())
    extractions = len(requests_to(fp, "/v1/chat/completions"))
    second = run(one_run())
    assert (first.skipped, first.error, first.usage.calls) == (False, None, 2 * 3)
    assert (second.skipped, second.error, second.usage.calls) == (True, None, 0)
    assert extractions == 2
    assert len(requests_to(fp, "/v1/chat/completions")) == 2  # none on the second run


def test_the_api_key_is_in_no_file_of_the_run(dataset: Any, fp, tmp_path) -> None:
    _first_run(make_mem0(tmp_path, fp, store="folder"), conversation(dataset, "conv-26", 1))
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "ingested.json" for p in files)
    assert any(p.name == "history.db" for p in files)
    assert [p for p in files if API_KEY.encode() in p.read_bytes()] == []
