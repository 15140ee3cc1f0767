"""Acceptance for Mem0g (`--system mem0 --system-option graph=kuzu`): mem0ai 1.0 with its
Kùzu graph, in its own environment behind the HTTP contract, run for real against the fake
provider on two real LoCoMo conversations.

One run is killed with SIGKILL as soon as one conversation is fully ingested (the other is
not), and run again into the same folder: the second run re-ingests only the unfinished
conversation. Needs the environment (`locoscore systems install mem0g`, which CI runs before
the suite); without it the module skips.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from built_environments import skip_unless_built
from mem0_helpers import API_KEY, DIMS
from typer.testing import CliRunner

from locoscore.benchmarks.locomo.data.conversations import locomo_conversations
from locoscore.cli import app
from locoscore.errors import InputError
from locoscore.systems.environments import built_python
from locoscore.systems.mem0g import ENVIRONMENT
from locoscore.testing import FakeConfig, FakeProvider

# Read now, before the suite's fixture points the user cache at an empty folder.
USER_CACHE = os.environ.get("XDG_CACHE_HOME")
try:
    ENV_PYTHON = built_python(ENVIRONMENT)
except InputError:  # locoscore not installed: no dependency list, no environment
    ENV_PYTHON = None
pytestmark = [
    skip_unless_built(
        "mem0g",
        ENV_PYTHON,
        "the Mem0g environment is not built (`locoscore systems install mem0g`, needs PyPI)",
    ),
    pytest.mark.xdist_group("mem0g"),  # one worker runs the module's one pair of runs
]
CONVERSATIONS = ("conv-26", "conv-30")
SPEAKERS = {"conv-26": ("Caroline", "Melanie"), "conv-30": ("Jon", "Gina")}
WAIT_S = 900


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _sessions_recorded(checkpoint: Path) -> dict[str, int]:
    try:
        data = json.loads(checkpoint.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {c: len(e["sessions"]) for c, e in data.get("conversations", {}).items()}


# Session scope: a module fixture is set up again whenever xdist interleaves another module's
# test on the worker; the runs are the expensive part, made once.
@pytest.fixture(scope="session")
def mem0g_runs(
    tmp_path_factory: pytest.TempPathFactory, locomo_path: Path, dataset: Any
) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("mem0g-run")
    sessions = {
        c.conversation_id: len(c.sessions)
        for c in locomo_conversations(dataset)
        if c.conversation_id in CONVERSATIONS
    }
    with pytest.MonkeyPatch.context() as env, FakeProvider(FakeConfig(embedding_dims=DIMS)) as fp:
        env.setenv("OPENAI_API_KEY", API_KEY)
        env.delenv("OPENAI_BASE_URL", raising=False)
        if USER_CACHE is None:
            env.delenv("XDG_CACHE_HOME", raising=False)
        else:
            env.setenv("XDG_CACHE_HOME", USER_CACHE)
        args = [
            "run", "--system", "mem0", "--system-option", "graph=kuzu", "--out", str(out),
            "--dataset", str(locomo_path), "--conversations", ",".join(CONVERSATIONS),
            "--answer-provider", "extractive",
            "--system-option", f"llm_base_url={fp.openai_url}",
            "--system-option", f"embedder_base_url={fp.openai_url}",
            "--system-option", f"embedding_dims={DIMS}",
            "--skip-probe", "--no-progress",
        ]  # fmt: skip
        first = subprocess.Popen(
            [sys.executable, "-m", "locoscore", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        checkpoint = out / "system_state" / "mem0g" / "ingested.json"
        deadline = time.monotonic() + WAIT_S
        servers: list[int] = []
        while first.poll() is None and time.monotonic() < deadline:
            servers = servers or _children(first.pid)
            recorded = _sessions_recorded(checkpoint)
            if any(recorded.get(c) == n for c, n in sessions.items()):
                break
            time.sleep(0.02)
        first.send_signal(signal.SIGKILL)
        first.wait()
        at_kill = _sessions_recorded(checkpoint)
        while any(_alive(pid) for pid in servers) and time.monotonic() < deadline:
            time.sleep(0.1)  # the server notices its run is gone and stops itself
        logged = len(fp.requests_log)
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        return {
            "out": out,
            "sessions": sessions,
            "at_kill": at_kill,
            "servers": servers,
            "resumed_log": fp.requests_log[logged:],
        }


def _predictions(out: Path) -> list[dict[str, Any]]:
    lines = (out / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _relation(item: dict[str, Any]) -> bool:
    return " -- talked_about -- " in item["text"]


def test_the_killed_run_stopped_its_server_and_the_rerun_ingests_only_the_unfinished(
    mem0g_runs: dict[str, Any],
) -> None:
    sessions, at_kill = mem0g_runs["sessions"], mem0g_runs["at_kill"]
    assert sessions == {"conv-26": 19, "conv-30": 19}
    finished = [c for c in CONVERSATIONS if at_kill.get(c) == sessions[c]]
    unfinished = [c for c in CONVERSATIONS if c not in finished]
    assert len(finished) == 1 and len(unfinished) == 1, at_kill
    assert mem0g_runs["servers"] and not any(_alive(p) for p in mem0g_runs["servers"])
    # The rerun's fact extractions: one per session of the unfinished conversation only.
    facts = [
        e["body"]["messages"][-1]["content"]
        for e in mem0g_runs["resumed_log"]
        if e["path"] == "/v1/chat/completions"
        and str(e["body"]["messages"][-1]["content"]).startswith("Input:\n")
    ]
    assert len(facts) == sessions[unfinished[0]]
    done_speaker = SPEAKERS[finished[0]][0]
    assert not any(f"user: {done_speaker}:" in f for f in facts)
    run = json.loads((mem0g_runs["out"] / "run.json").read_text(encoding="utf-8"))
    per = run["ingestion"]["per_conversation"]
    assert per[unfinished[0]]["skipped"] is False
    usage = per[unfinished[0]]["usage"]
    # 5 chat calls per session: facts, memory actions, and the three graph tool calls
    assert usage["calls"] > 5 * 19 and usage["input_tokens"] > 0
    assert usage["output_tokens"] > 0 and usage["embedding_tokens"] > 0
    assert run["system"]["options"]["graph"] == "kuzu"
    assert run["system"]["options"]["mem0ai"] == "1.0.11"
    files = [p for p in mem0g_runs["out"].rglob("*") if p.is_file()]
    assert any(p.name == "relation_dates.json" for p in files)
    assert [p for p in files if API_KEY.encode() in p.read_bytes()] == []


def test_every_question_is_answered_with_dated_memories_and_relations(
    mem0g_runs: dict[str, Any],
) -> None:
    records = _predictions(mem0g_runs["out"])
    assert len(records) == 199 + 105
    assert all(r["error"] is None for r in records)
    conv26 = [i for r in records if r["question_id"].startswith("conv-26#") for i in r["retrieved"]]
    assert all(i["date_iso"] and i["date_iso"].startswith("2023-") for i in conv26)
    relations = {i["text"]: i["date_iso"] for i in conv26 if _relation(i)}
    # Session 1 (1:56 pm on 8 May 2023) opens "Melanie: Hey Caroline! Good to see you! ..."
    # -> the fake's relation to the line's longest word (first of equal length); Kùzu
    # stamped it with the time of the test, the item carries the session's date.
    assert relations["melanie -- talked_about -- caroline"] == "2023-05-08T13:56"


def test_no_conv_26_item_is_retrieved_for_a_conv_30_question(
    mem0g_runs: dict[str, Any], dataset: Any
) -> None:
    conv30 = next(c for c in locomo_conversations(dataset) if c.conversation_id == "conv-30")
    turns = {t.render() for s in conv30.sessions for t in s.turns}
    records = [r for r in _predictions(mem0g_runs["out"]) if r["question_id"].startswith("conv-30")]
    items = [i for r in records for i in r["retrieved"]]
    assert items
    for item in items:
        if _relation(item):
            assert item["text"].split(" -- ")[0] in ("jon", "gina"), item
        else:
            assert item["text"] in turns, item


def test_the_probe_passes_on_mem0g(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    if USER_CACHE is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", USER_CACHE)
    with FakeProvider(FakeConfig(embedding_dims=DIMS)) as fp:
        result = CliRunner().invoke(
            app,
            [
                "probe", "--system", "mem0", "--system-option", "graph=kuzu",
                "--system-option", f"llm_base_url={fp.openai_url}",
                "--system-option", f"embedder_base_url={fp.openai_url}",
                "--system-option", f"embedding_dims={DIMS}",
            ],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "all checks passed" in result.output


def test_an_unreachable_embedder_is_one_line_exit_2(
    tmp_path: Path, locomo_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    if USER_CACHE is not None:
        monkeypatch.setenv("XDG_CACHE_HOME", USER_CACHE)
    else:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    out = tmp_path / "out"
    nowhere = "http://127.0.0.1:9/v1"  # the discard port: nothing listens
    result = CliRunner().invoke(
        app,
        ["run", "--system", "mem0", "--system-option", "graph=kuzu", "--out", str(out),
         "--system-option", f"llm_base_url={nowhere}",
         "--system-option", f"embedder_base_url={nowhere}",
         "--dataset", str(locomo_path), "--conversations", "conv-30",
         "--answer-provider", "extractive", "--no-progress", "--skip-probe"],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert errors == [
        "error: --system mem0 graph=kuzu: its server did not start (--system mem0: embedder "
        f"text-embedding-3-small at {nowhere}: unreachable)"
    ]
    assert not out.exists()
