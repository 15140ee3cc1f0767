"""Mem0g's parts that need no Mem0g environment: the pinned environment's name and build
failure, how relations are dated and items ordered, the option that picks Mem0g, the
pricing of what the server reports, and what the fake provider answers mem0 1.0."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.data.conversation import SessionInput, TurnInput
from locoscore.errors import InputError
from locoscore.systems._mem0g_session import RelationDates, date_message, interleave
from locoscore.systems.base import MemoryItem, Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.environments import (
    MARKER,
    EnvironmentSpec,
    built_python,
    ensure_environment,
    environment_dir,
    environment_key,
    python_path,
)
from locoscore.systems.mem0g import Mem0GraphSystem
from locoscore.systems.registry import make_system
from locoscore.testing._mem0_graph_wire import (
    facts_reply,
    graph_tool_calls,
    memory_actions_reply,
)

SPEC = EnvironmentSpec("demo", ("pkg-a==1.0", "pkg-b>=2"), "locoscore systems install demo")


def _session(index: int, date_iso: str | None, date_raw: str | None) -> SessionInput:
    turn = TurnInput(speaker="Jon", dia_id=f"D{index}:1", text="I lost my job")
    return SessionInput("conv-30", index, date_raw, date_iso, (turn,), ("Jon", "Gina"))


# ---------------------------------------------------------------- the environment


def test_the_environment_is_named_by_its_pins_and_python() -> None:
    key = environment_key(("b==2", "a==1"), "3.11")
    assert key == environment_key(("a==1", "b==2", "a==1"), "3.11")  # order, repeats
    assert key != environment_key(("a==1", "b==3"), "3.11")
    assert key != environment_key(("a==1", "b==2"), "3.13")
    assert len(key) == 12


def test_the_environment_lives_in_the_user_cache(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = environment_dir(SPEC)
    assert folder.parent == tmp_path / "locoscore" / "envs"
    assert folder.name.startswith("demo-")
    assert built_python(SPEC) is None
    # built = the marker written after pip succeeded, and a Python
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "python").symlink_to(sys.executable)
    assert built_python(SPEC) is None
    (folder / MARKER).write_text("{}", encoding="utf-8")
    assert built_python(SPEC) == folder / "bin" / "python"
    assert ensure_environment(SPEC) == folder / "bin" / "python"  # nothing built again
    path = python_path(SPEC)
    assert [p.name for p in path.iterdir()] == ["locoscore"]  # a link to this locoscore only
    assert (path / "locoscore" / "systems" / "environments.py").is_file()


def test_a_build_that_fails_is_one_line_naming_the_install_command(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    broken = EnvironmentSpec("broken", ("not a requirement!",), "locoscore systems install x")
    with pytest.raises(InputError) as caught:
        ensure_environment(broken)  # pip refuses the requirement offline
    message = str(caught.value)
    assert "building the broken environment" in message and "\n" not in message
    assert "locoscore systems install x" in message
    assert list((tmp_path / "locoscore" / "envs").iterdir()) == []  # no half-built folder


def test_an_unknown_environment_is_exit_2() -> None:
    result = CliRunner().invoke(app, ["systems", "install", "nope"])
    assert result.exit_code == 2
    assert "nope: no system environment of that name (known: letta, mem0g)" in result.output


# ---------------------------------------------------------------- dating and ordering


def test_relations_are_dated_by_the_session_that_first_added_them(tmp_path: Path) -> None:
    dates = RelationDates(tmp_path / "relation_dates.json")
    first = _session(1, "2023-01-20T16:04", "4:04 pm on 20 January, 2023")
    later = _session(2, "2023-01-29T14:32", "2:32 pm on 29 January, 2023")
    added = [[{"source": "jon", "relationship": "lost", "target": "job"}]]
    assert dates.record(added, first) == 1
    met_gina = [{"source": "jon", "relationship": "met", "target": "gina"}]
    assert dates.record([*added, met_gina], later) == 1  # the first keeps its session
    dates.save()
    reloaded = RelationDates(tmp_path / "relation_dates.json")  # a resumed run
    item = reloaded.item({"source": "jon", "relationship": "lost", "destination": "job"})
    assert item == MemoryItem(
        "jon -- lost -- job", None, "2023-01-20T16:04", "4:04 pm on 20 January, 2023"
    )
    met = reloaded.item({"source": "jon", "relationship": "met", "destination": "gina"})
    assert met.date_iso == "2023-01-29T14:32"
    unseen = reloaded.item({"source": "a", "relationship": "b", "destination": "c"})
    assert (unseen.date_iso, unseen.date_raw) == (None, None)


def test_a_store_closes_only_once_the_add_in_flight_is_done(tmp_path: Path) -> None:
    """Kùzu's database closed under a running query hangs both: a server stopping because its
    run was killed mid-session waits for that session's add, then closes every part."""
    from locoscore.systems._mem0g_library import _close, _Store

    closed: list[str] = []

    def closer(part: str) -> SimpleNamespace:
        return SimpleNamespace(close=lambda: closed.append(part))

    memory = SimpleNamespace(
        close=lambda: closed.append("history"),
        vector_store=SimpleNamespace(client=closer("qdrant")),
        graph=SimpleNamespace(graph=closer("kuzu connection"), db=closer("kuzu database")),
    )
    store = _Store(memory, None, RelationDates(tmp_path / "dates.json"), threading.Lock())
    store.lock.acquire()  # an add is running
    closing = threading.Thread(target=_close, args=(store,))
    closing.start()
    closing.join(timeout=0.3)
    assert closing.is_alive() and closed == []
    store.lock.release()  # the add is done
    closing.join(timeout=10)
    assert closed == ["history", "qdrant", "kuzu connection", "kuzu database"]


def test_memories_and_relations_alternate_within_top_k() -> None:
    m = [MemoryItem(f"m{i}") for i in range(3)]
    r = [MemoryItem(f"r{i}") for i in range(5)]
    texts = [i.text for i in interleave(m, r, 10)]
    assert texts == ["m0", "r0", "m1", "r1", "m2", "r2", "r3", "r4"]
    assert [i.text for i in interleave(m, r, 3)] == ["m0", "r0", "m1"]
    assert interleave([], r, 2) == tuple(r[:2])


def test_the_session_date_travels_as_a_system_message() -> None:
    message = date_message(_session(1, "2023-01-20T16:04", "4:04 pm on 20 January, 2023"))
    assert message is not None and message["role"] == "system"
    assert message["content"].startswith("These messages were exchanged on 4:04 pm on 20")
    assert "between Jon and Gina" in message["content"]
    assert date_message(_session(1, None, None)) is None


# ---------------------------------------------------------------- the system


def test_graph_kuzu_picks_mem0g_and_its_signature(tmp_path: Path) -> None:
    system = make_system("mem0", {"graph": "kuzu"}, SystemContext(tmp_path))
    assert isinstance(system, Mem0GraphSystem) and system.name == "mem0"
    options = system.signature_options()
    assert {k: options[k] for k in ("graph", "mem0ai", "llm_model", "embedder_model")} == {
        "graph": "kuzu",
        "mem0ai": "1.0.11",
        "llm_model": "gpt-4o-mini",
        "embedder_model": "text-embedding-3-small",
    }
    assert list(tmp_path.iterdir()) == []  # nothing written before start
    with pytest.raises(InputError, match="expects one of kuzu"):
        make_system("mem0", {"graph": "neo4j"}, SystemContext(tmp_path))


def test_what_the_server_spent_is_priced_with_the_runs_table(tmp_path: Path) -> None:
    system = make_system("mem0", {"graph": "kuzu"}, SystemContext(tmp_path))
    assert isinstance(system, Mem0GraphSystem)
    reported = Usage(1_000_000, 1_000_000, None, 7, 1_000_000)
    # gpt-4o-mini 0.15 in + 0.60 out, text-embedding-3-small 0.02 (USD per Mtok)
    priced = system._priced(reported)
    assert priced == Usage(1_000_000, 1_000_000, pytest.approx(0.77), 7, 1_000_000)


# ---------------------------------------------------------------- the fake provider


def test_the_fake_answers_mem0_1_0s_fact_and_memory_calls() -> None:
    facts = facts_reply(
        [
            {"role": "system", "content": "You are a Personal Information Organizer"},
            {
                "role": "user",
                "content": "Input:\nsystem: exchanged on 8 May\nuser: Jon: I lost my job\n"
                "user: Gina: Sorry\nto hear\n",
            },
        ]
    )
    assert json.loads(facts or "") == {"facts": ["Jon: I lost my job", "Gina: Sorry\nto hear"]}
    update = (
        "... The new retrieved facts are mentioned in the triple backticks. ...\n\n"
        "    ```\n    ['Jon: I lost my job']\n    ```\n\n    You must return ..."
    )
    actions = memory_actions_reply([{"role": "user", "content": update}])
    assert json.loads(actions or "") == {
        "memory": [{"id": "0", "text": "Jon: I lost my job", "event": "ADD"}]
    }
    assert facts_reply([{"role": "user", "content": "What?"}]) is None


def test_the_fake_answers_mem0s_graph_tools() -> None:
    def body(tool: str, text: str) -> dict:
        return {
            "tools": [{"type": "function", "function": {"name": tool}}],
            "messages": [{"role": "user", "content": text}],
        }

    def arguments(calls: list | None) -> dict:
        assert calls is not None and len(calls) == 1
        return json.loads(calls[0]["function"]["arguments"])

    said = "Jon: I lost my job today\nGina: Sorry to hear"
    assert arguments(graph_tool_calls(body("extract_entities", said)))["entities"] == [
        {"entity": "Jon", "entity_type": "person"},
        {"entity": "today", "entity_type": "topic"},
        {"entity": "Gina", "entity_type": "person"},
        {"entity": "Sorry", "entity_type": "topic"},
    ]
    question = "When did Jon lose his job?"
    assert arguments(graph_tool_calls(body("extract_entities", question)))["entities"] == [
        {"entity": "When", "entity_type": "person"},
        {"entity": "Jon", "entity_type": "person"},
    ]
    relations = body("establish_relationships", f"List of entities: [].\n\nText: {said}")
    assert arguments(graph_tool_calls(relations))["entities"] == [
        {"source": "Jon", "relationship": "talked_about", "destination": "today"},
        {"source": "Gina", "relationship": "talked_about", "destination": "Sorry"},
    ]
    assert graph_tool_calls(body("delete_graph_memory", said)) == []
    assert graph_tool_calls(body("Memory", said)) is None


def test_a_run_whose_environment_cannot_be_built_is_one_line_exit_2(
    tmp_path: Path, locomo_path: Path, monkeypatch
) -> None:
    # The suite's user cache is empty: the run builds the environment, and pip, given no
    # index and no configuration, finds nothing (offline, as a machine without PyPI).
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["run", "--system", "mem0", "--system-option", "graph=kuzu", "--out", str(out),
         "--dataset", str(locomo_path), "--conversations", "conv-30",
         "--answer-provider", "extractive", "--no-progress", "--skip-probe"],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    assert "No matching distribution found for mem0ai==1.0.11" in errors[0]
    assert "run `locoscore systems install mem0g` where PyPI is reachable" in errors[0]
    assert "Traceback" not in result.output
    assert not out.exists()
