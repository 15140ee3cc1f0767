"""Acceptance for `--system letta`: the Letta 0.11.7 server run for real, offline, from its own
environment against the fake provider, on conv-26 and conv-30.

One scenario (the server takes about a minute to start, so it starts twice, not per check):
a first system ingests conv-30 and the first two sessions of conv-26, then is closed as if
killed; `locoscore run --system letta` on both conversations then resumes conv-30 and
ingests conv-26 again from the start. The fake answers each agent step with Letta's tools
(`locoscore.testing._letta_wire`): one dated `memory_insert` per session, then
`send_message`, so each session costs exactly two LLM calls.

Needs the Letta environment: `LOCOSCORE_LETTA_PYTHON` (the Python of a venv holding
`letta[server,sqlite]==0.11.7`), else the environment locoscore builds under the user cache.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from built_environments import skip_unless_built
from mem0_helpers import conversation
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.data.conversation import Query
from locoscore.systems._letta_server import ENVIRONMENT
from locoscore.systems.context import SystemContext
from locoscore.systems.environments import built_python
from locoscore.systems.registry import make_system
from locoscore.testing import FakeConfig, FakeProvider
from locoscore.testing._verdicts import all_text, estimate_tokens


def _letta_python() -> str | None:
    explicit = os.environ.get("LOCOSCORE_LETTA_PYTHON")
    if explicit:
        return explicit if Path(explicit).exists() else None
    built = built_python(ENVIRONMENT)
    return None if built is None else str(built)


PYTHON = _letta_python()
pytestmark = [
    skip_unless_built(
        "letta",
        PYTHON,
        "no Letta environment (`locoscore systems install letta`, or LOCOSCORE_LETTA_PYTHON "
        "set to the Python of a venv with letta[server,sqlite]==0.11.7, mcp[cli]<1.17, "
        "pydantic<2.13)",
    ),
    pytest.mark.xdist_group("letta"),  # one worker makes the session's runs
]
API_KEY = "sk-letta-test-DO-NOT-LOG-3f9d"
CHAT = "/v1/chat/completions"


def _options(fp: FakeProvider) -> dict[str, str]:
    return {
        "llm_base_url": fp.openai_url,
        "embedder_base_url": fp.openai_url,
        "embedding_dims": "64",
        "python": str(PYTHON),
    }


QUESTIONS = ("When did Gina lose her job?", "What is Jon's business?")


async def _killed_first_run(state: Path, fp: FakeProvider, dataset: Any) -> list[Any]:
    """Ingests conv-30 and two sessions of conv-26 with `answer=agent`, asking conv-30's
    agent two questions in between; what the questions returned."""
    system = make_system("letta", {**_options(fp), "answer": "agent"}, SystemContext(state))
    await system.start()
    asked = []
    try:
        for cid, sessions in (("conv-30", None), ("conv-26", 2)):
            conv = conversation(dataset, cid, sessions)
            await system.reset(cid)
            for session in conv.sessions:
                await system.add(session)
            if cid == "conv-30":
                for number, text in enumerate(QUESTIONS):
                    query = Query(cid, f"{cid}#{number}", text, 5, "2023-07-23T18:46")
                    asked.append(await system.search(query))
    finally:
        await system.aclose()  # conv-26 stops after two sessions: as if killed
    return asked


# Session scope: a module fixture is set up again whenever xdist interleaves another module's
# test on the worker; the runs are the expensive part, made once.
@pytest.fixture(scope="session")
def letta_run(
    tmp_path_factory: pytest.TempPathFactory, locomo_path: Path, dataset: Any
) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("letta-run")
    with pytest.MonkeyPatch.context() as env, FakeProvider(FakeConfig()) as fp:
        env.setenv("OPENAI_API_KEY", API_KEY)
        env.delenv("OPENAI_BASE_URL", raising=False)
        asked = asyncio.run(_killed_first_run(out / "system_state", fp, dataset))
        first_log = [e for e in fp.requests_log if e["path"] == CHAT]
        fp.reset_counters()
        options = [a for k, v in _options(fp).items() for a in ("--system-option", f"{k}={v}")]
        result = CliRunner().invoke(
            app,
            [
                "run", "--system", "letta", "--out", str(out), "--dataset", str(locomo_path),
                "--conversations", "conv-26,conv-30", "--answer-provider", "extractive",
                *options, "--no-progress",
            ],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        return {"out": out, "log": fp.requests_log, "first_log": first_log, "asked": asked}


def test_letta_answers_from_dated_isolated_memory_and_resumes(letta_run, dataset: Any) -> None:
    out, log = letta_run["out"], letta_run["log"]
    assert len(letta_run["first_log"]) == 2 * (19 + 2) + 2  # two steps a session, one a question
    records = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(records) == 199 + 105
    assert all(r["error"] is None and r["prediction"] for r in records)

    # Every record holds its own conversation as the agent holds it: the core memory block
    # (one dated line per session), then every turn in order with its session's date.
    said = {
        (c, t.dia_id): (t.render(), s.date_iso, s.date_raw)
        for c in ("conv-26", "conv-30")
        for s in conversation(dataset, c).sessions
        for t in s.turns
    }
    for record in records:
        cid = record["sample_id"]
        block, *turns = record["retrieved"]
        last = conversation(dataset, cid).sessions[-1]
        assert block["text"].startswith("[Letta core memory: human]")
        assert "Session 19 of the conversation between" in block["text"]
        assert f"held on {last.date_raw}." in block["text"]
        assert (block["date_iso"], block["date_raw"]) == (last.date_iso, last.date_raw)
        assert [t["dia_ids"][0] for t in turns] == [d for c, d in said if c == cid]
        for item in turns:
            (dia_id,) = item["dia_ids"]
            assert (item["text"], item["date_iso"], item["date_raw"]) == said[(cid, dia_id)]

    # Resume: conv-30 was not ingested again; conv-26 was, all 19 sessions.
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert "letta=0.11.7" in run["signature"] and "llm_model=gpt-4o-mini" in run["signature"]
    per = run["ingestion"]["per_conversation"]
    assert per["conv-30"]["skipped"] is True and per["conv-30"]["usage"]["calls"] == 0
    usage = per["conv-26"]["usage"]
    assert run["probe"]["ok"] is True, run["probe"]  # the run's integration probe
    chats = [
        e
        for e in log
        if e["path"] == CHAT and "between Caroline and Melanie" in all_text(e["body"]["messages"])
    ]  # conv-26's steps (the probe's synthetic pair made the others)
    assert usage["calls"] == len(chats) == 2 * 19
    assert usage["input_tokens"] == sum(
        estimate_tokens(all_text(e["body"]["messages"])) for e in chats
    )
    assert usage["output_tokens"] > 0
    expected = (usage["input_tokens"] * 0.15 + usage["output_tokens"] * 0.60) / 1_000_000
    assert usage["cost_usd"] == pytest.approx(expected, abs=1e-6)
    assert per["conv-26"]["wall_s"] > 0
    # What the server writes stays in the run (Letta writes its OpenAPI schema into its
    # working folder at every start).
    assert (out / "system_state/letta/home/openapi_letta.json").exists()
    assert not (Path.cwd() / "openapi_letta.json").exists()
    # The key reached the provider through locoscore's proxy only: never the Letta server.
    assert [p for p in out.rglob("*") if p.is_file() and API_KEY.encode() in p.read_bytes()] == []


def test_the_agent_answers_itself_each_question_from_memory_as_ingestion_left_it(
    letta_run,
) -> None:
    first, second = letta_run["asked"]
    assert (first.answer, second.answer) == ("Noted.", "Noted.")  # the fake's send_message
    assert first.usage.calls == second.usage.calls == 1  # one agent step each, metered
    assert first.items[0].text.startswith("[Letta core memory: human]")
    assert first.items[0].date_iso == "2023-07-23T18:46"  # conv-30's last session
    steps = letta_run["first_log"][2 * 19 : 2 * 19 + 2]
    seen = [all_text(e["body"]["messages"]) for e in steps]
    assert QUESTIONS[0] in seen[0] and "asked on 2023-07-23T18:46" in seen[0]
    assert QUESTIONS[1] in seen[1] and QUESTIONS[0] not in seen[1]  # context restored
