"""`locoscore run --system http` end to end: the same predictions as the system in process,
the server's ingestion spend in run.json, and a dead URL refused before anything is written.
Two real LoCoMo conversations: conv-26 (199 questions) and conv-30 (105)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from fault_server import FaultServer
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.data.conversation import Query, SessionInput
from locoscore.systems.base import MemorySystem, SearchResult, Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.registry import make_system
from locoscore.systems.serve import MemoryServer

TIMINGS = ("search_latency_s", "answer_latency_s", "total_latency_s")


def _run(
    locomo_path: Path, out: Path, system: str, *options: str, convs: str, probe: bool = True
) -> Any:
    """`locoscore run ... --answer-provider extractive` in this process (the CLI's own code
    path; a subprocess would only add interpreter start-up to each of these runs)."""
    args = [
        "run",
        "--system",
        system,
        "--out",
        str(out),
        "--dataset",
        str(locomo_path),
        "--conversations",
        convs,
        "--answer-provider",
        "extractive",
        "--no-progress",
        *([] if probe else ["--skip-probe"]),
    ]
    for option in options:
        args += ["--system-option", option]
    return CliRunner().invoke(app, args)


def _predictions(out: Path) -> list[dict[str, Any]]:
    lines = (out / "predictions.jsonl").read_text().splitlines()
    return [{k: v for k, v in json.loads(line).items() if k not in TIMINGS} for line in lines]


def test_run_over_http_predicts_what_bm25_predicts(locomo_path, tmp_path, served_by_the_cli):
    direct = _run(locomo_path, tmp_path / "bm25", "bm25", convs="conv-26,conv-30")
    served = _run(
        locomo_path,
        tmp_path / "http",
        "http",
        f"url={served_by_the_cli}",
        convs="conv-26,conv-30",
    )
    assert (direct.exit_code, served.exit_code) == (0, 0), served.output
    expected, got = _predictions(tmp_path / "bm25"), _predictions(tmp_path / "http")
    assert len(got) == 199 + 105
    # Same retrieved items (text, score, dia_ids, dates), same answers, same measures.
    assert got == expected
    assert all(row["error"] is None and len(row["retrieved"]) == 10 for row in got)
    run = json.loads((tmp_path / "http" / "run.json").read_text())
    assert run["system"]["options"] == {
        "contract": "locoscore-memory/1",
        "server": "bm25",
        "server.b": "0.75",
        "server.granularity": "turn",
        "server.k1": "1.5",
    }
    assert run["signature"].startswith(
        "run:http|opts:contract=locoscore-memory/1,server=bm25,server.b=0.75,"
        "server.granularity=turn,server.k1=1.5|top_k:10|"
    )


class _MeteredSystem(MemorySystem):
    """What an extracting server spends, reported per session: 100 tokens in, 1 out and
    $0.001 per turn, one model call per session. It retrieves nothing."""

    name = "metered"

    async def reset(self, conversation_id: str) -> None:
        pass

    async def add(self, session: SessionInput) -> Usage:
        n = len(session.turns)
        return Usage(input_tokens=100 * n, output_tokens=n, cost_usd=0.001 * n, calls=1)

    async def search(self, query: Query) -> SearchResult:
        return SearchResult(())


def test_the_servers_ingestion_spend_reaches_run_json(locomo_path, tmp_path):
    with MemoryServer(_MeteredSystem()) as server:
        # it retrieves nothing (or answers without memory): the probe would refuse it
        done = _run(
            locomo_path, tmp_path / "out", "http", f"url={server.url}", convs="conv-30", probe=False
        )
        assert done.exit_code == 0, done.output
        first = json.loads((tmp_path / "out" / "run.json").read_text())["ingestion"]
        again = _run(
            locomo_path, tmp_path / "out", "http", f"url={server.url}", convs="conv-30", probe=False
        )
    assert again.exit_code == 0, again.output
    spent = {"requests": 19, "sessions": 19, "input_tokens": 36900, "output_tokens": 369,
             "cost_usd": 0.369}  # fmt: skip
    assert first["all_attempts"] == {
        **spent,
        "this_attempt": spent,
        "earlier_attempts": {"attempts": 0, **dict.fromkeys(spent, 0), "cost_usd": 0.0},
    }
    # the finished run rerun ingests nothing more, and still reports what ingesting cost
    assert json.loads((tmp_path / "out" / "run.json").read_text())["ingestion"]["all_attempts"][
        "earlier_attempts"
    ] == {"attempts": 1, **spent}
    ingestion = json.loads((tmp_path / "out" / "run.json").read_text())["ingestion"]
    # conv-30: 19 sessions, 369 turns.
    usage = ingestion["per_conversation"]["conv-30"]["usage"]
    assert usage == {
        "input_tokens": 36900,
        "output_tokens": 369,
        "embedding_tokens": 0,
        "cost_usd": 0.369,
        "calls": 19,
    }
    totals = ingestion["totals"]
    assert (totals["input_tokens"], totals["output_tokens"], totals["calls"]) == (36900, 369, 19)
    assert totals["cost_usd"] == 0.369


def test_a_dead_url_is_one_line_exit_2_and_nothing_written(locomo_path, tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "locoscore",
            "run",
            "--system",
            "http",
            "--out",
            str(out),
            "--dataset",
            str(locomo_path),
            "--answer-provider",
            "extractive",
            "--system-option",
            "url=http://127.0.0.1:9",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        "error: --system-option url=http://127.0.0.1:9: /v1/info: cannot reach the memory server"
    )
    assert not out.exists()


def test_a_server_failing_one_question_is_recorded_against_it(locomo_path, tmp_path, context):
    """A search the server refuses (a 400 is not retried): that question's record carries
    the reason, the others go on, the run exits 1; a rerun asks only that question again."""
    backend = MemoryServer(make_system("bm25", {}, context))
    with backend, FaultServer(backend, {"search": ["400"]}) as server:
        first = _run(
            locomo_path,
            tmp_path / "out",
            "http",
            f"url={server.url}",
            "retry_base_delay_s=0.01",
            convs="conv-30",
            probe=False,  # the scripted 400 is for the run's first search, not the probe's
        )
        assert first.exit_code == 1
        rows = [json.loads(x) for x in (tmp_path / "out" / "predictions.jsonl").open()]
        failed = [row for row in rows if row["error"] is not None]
        assert len(rows) == 105 and len(failed) == 1
        assert "client_error: HTTP 400" in failed[0]["error"]
        searches = server.requests["search"]
        again = _run(
            locomo_path,
            tmp_path / "out",
            "http",
            f"url={server.url}",
            "retry_base_delay_s=0.01",
            convs="conv-30",
            probe=False,
        )
        assert again.exit_code == 0, again.output
        assert server.requests["search"] == searches + 1  # only the failed question


def test_the_bearer_token_is_in_no_output(locomo_path, tmp_path, context, monkeypatch):
    token = "tok-e2e-5b0c9d14"
    monkeypatch.setenv("LOCOSCORE_MEMORY_TOKEN", token)
    server = MemoryServer(make_system("bm25", {}, context), token=token)
    with server:
        done = _run(locomo_path, tmp_path / "out", "http", f"url={server.url}", convs="conv-30")
    assert done.exit_code == 0, done.output
    written = sorted(p for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert len(written) >= 7  # predictions, run.json, state, scores, summary, reports
    assert all(token.encode() not in p.read_bytes() for p in written)
    assert token not in done.output


class _AnsweringSystem(MemorySystem):
    """A server that answers itself: 'answer to <question id>', based on no items."""

    name = "oracle"
    answers_itself = True

    async def reset(self, conversation_id: str) -> None:
        pass

    async def add(self, session: SessionInput) -> Usage:
        return Usage()

    async def search(self, query: Query) -> SearchResult:
        return SearchResult((), answer=f"answer to {query.question_id}")


def test_a_server_that_answers_itself_owns_the_answers_and_says_so(locomo_path, tmp_path):
    with MemoryServer(_AnsweringSystem()) as server:
        # it retrieves nothing (or answers without memory): the probe would refuse it
        done = _run(
            locomo_path, tmp_path / "out", "http", f"url={server.url}", convs="conv-30", probe=False
        )
    assert done.exit_code == 0, done.output
    rows = [json.loads(x) for x in (tmp_path / "out" / "predictions.jsonl").open()]
    assert len(rows) == 105
    assert all(row["prediction"] == f"answer to {row['question_id']}" for row in rows)
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert run["system"]["answers_itself"] is True
    assert "opts:answers=server,contract=locoscore-memory/1,server=oracle|" in run["signature"]
    assert "|answer:system|" in run["signature"] and "extractive" not in run["signature"]


def test_served_embedding_predicts_and_spends_what_it_does_in_process(
    locomo_path, tmp_path, context
):
    """A system that spends while ingesting (embedding calls to the fake provider): over
    http its predictions, and the ingestion tokens and cost in run.json, are the same."""
    from locoscore.testing import FakeConfig, FakeProvider

    with FakeProvider(FakeConfig(log_requests=False)) as fake:
        options = {"base_url": fake.openai_url}
        direct = _run(
            locomo_path,
            tmp_path / "direct",
            "embedding",
            f"base_url={fake.openai_url}",
            convs="conv-30",
        )
        served_context = SystemContext(tmp_path / "served-state")
        with MemoryServer(make_system("embedding", options, served_context)) as server:
            served = _run(
                locomo_path, tmp_path / "http", "http", f"url={server.url}", convs="conv-30"
            )
    assert (direct.exit_code, served.exit_code) == (0, 0), served.output
    # search_usage aside: a question text asked twice in conv-30 is embedded by whichever of
    # its two concurrent searches misses the vector cache first, in either run.
    expected, got = (
        [{k: v for k, v in row.items() if k != "search_usage"} for row in _predictions(out)]
        for out in (tmp_path / "direct", tmp_path / "http")
    )
    assert got == expected
    usage = {
        name: json.loads((tmp_path / name / "run.json").read_text())["ingestion"][
            "per_conversation"
        ]["conv-30"]["usage"]
        for name in ("direct", "http")
    }
    assert usage["http"] == usage["direct"]
    assert usage["http"]["calls"] == 19  # one embedding request per session
    assert usage["http"]["embedding_tokens"] > 0
