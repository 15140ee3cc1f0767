"""A-Mem (`a-mem` 0.2) run for real, offline, against the fake provider: `locoscore run
--system a-mem` on conv-26 and conv-30 cut to their first two sessions (the questions those
sessions answer), one note per turn dated by its session, every call metered, no note of one
conversation in another's results; then resume after an interruption.

The fake answers A-Mem's analysis with the note's first words of four letters or more,
"Said by <speaker>" and the tag "conversation", and links each note to its nearest neighbour
(`locoscore.testing._amem_wire`), so what A-Mem stores is predictable. (Two sessions each:
A-Mem makes two LLM calls per turn, and the suite stays fast.)"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from mem0_helpers import conversation, requests_to, run
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.data.conversation import Conversation, Query
from locoscore.systems.amem import note_item, note_time
from locoscore.systems.base import Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.registry import make_system
from locoscore.testing import FakeConfig, FakeProvider
from locoscore.testing._verdicts import all_text, estimate_tokens

installed = importlib.util.find_spec("agentic_memory") is not None
pytestmark = [
    pytest.mark.skipif(not installed, reason="the amem extra is not installed"),
    pytest.mark.xdist_group("amem"),  # one worker makes the session's runs
]
DIMS = 64
API_KEY = "sk-amem-test-DO-NOT-LOG-7d1e"
CHAT, EMBEDDINGS = "/v1/chat/completions", "/v1/embeddings"
CONVERSATIONS = ("conv-26", "conv-30")
SESSIONS = 2
TURNS = {"conv-26": 18 + 17, "conv-30": 28 + 16}  # their first two sessions


def _cut_dataset(locomo_path: Path, folder: Path) -> Path:
    """conv-26 and conv-30 with their first two sessions and the questions whose evidence
    lies in them."""
    samples = json.loads(locomo_path.read_text(encoding="utf-8"))
    cut = []
    for sample in samples:
        if sample["sample_id"] not in CONVERSATIONS:
            continue
        talk = sample["conversation"]
        kept = {k: v for k, v in talk.items() if not k.startswith("session_")}
        for index in range(1, SESSIONS + 1):
            for key in (f"session_{index}", f"session_{index}_date_time"):
                kept[key] = talk[key]
        prefixes = tuple(f"D{index}:" for index in range(1, SESSIONS + 1))
        qa = [q for q in sample["qa"] if q["evidence"] and all(
            e.startswith(prefixes) for e in q["evidence"])]  # fmt: skip
        cut.append({**sample, "conversation": kept, "qa": qa})
    path = folder / "locomo-cut.json"
    path.write_text(json.dumps(cut), encoding="utf-8")
    return path


def _options(fp: FakeProvider) -> dict[str, str]:
    return {
        "llm_base_url": fp.openai_url,
        "embedder_base_url": fp.openai_url,
        "embedding_dims": str(DIMS),
    }


def _cli_options(fp: FakeProvider) -> list[str]:
    return [arg for pair in _options(fp).items() for arg in ("--system-option", "=".join(pair))]


# Session scope: a module fixture is set up again whenever xdist interleaves another module's
# test on the worker; the runs are the expensive part, made once.
@pytest.fixture(scope="session")
def amem_run(tmp_path_factory: pytest.TempPathFactory, locomo_path: Path) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("amem-run")
    dataset = _cut_dataset(locomo_path, folder)
    out = folder / "out"
    with pytest.MonkeyPatch.context() as env, FakeProvider(FakeConfig(embedding_dims=DIMS)) as fp:
        env.setenv("OPENAI_API_KEY", API_KEY)
        env.delenv("OPENAI_BASE_URL", raising=False)
        result = CliRunner().invoke(
            app,
            [
                "run", "--system", "a-mem", "--out", str(out), "--dataset", str(dataset),
                "--conversations", ",".join(CONVERSATIONS), "--answer-provider", "extractive",
                "--skip-probe", "--no-progress", *_cli_options(fp),
            ],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        return {"out": out, "log": list(fp.requests_log), "dataset": dataset}


def _predictions(out: Path) -> list[dict[str, Any]]:
    lines = (out / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_every_question_is_answered_from_notes_dated_by_their_session(
    amem_run, dataset: Any
) -> None:
    records = _predictions(amem_run["out"])
    expected = json.loads(amem_run["dataset"].read_text(encoding="utf-8"))
    assert len(records) == sum(len(sample["qa"]) for sample in expected) > 0
    assert all(r["error"] is None for r in records)
    said = {
        (c, t.dia_id): (t.render(), s.date_iso, s.date_raw)
        for c in CONVERSATIONS
        for s in conversation(dataset, c, SESSIONS).sessions
        for t in s.turns
    }
    checked = 0
    for record in records:
        assert len(record["retrieved"]) == 10  # the run's top-k, no score cut
        for item in record["retrieved"]:
            # an item of the other conversation would not be this conversation's turn
            text, date_iso, date_raw = said[(record["sample_id"], item["dia_ids"][0])]
            assert item["text"].startswith(f"{text} (context: Said by {text.split(':')[0]}")
            assert (item["date_iso"], item["date_raw"]) == (date_iso, date_raw)
            checked += 1
    assert checked == 10 * len(records)


def _schema(entry: dict[str, Any]) -> dict[str, Any]:
    return dict(entry["body"]["response_format"]["json_schema"]["schema"]["properties"])


def test_each_turn_is_one_note_at_its_sessions_time(amem_run, dataset: Any) -> None:
    log = amem_run["log"]
    chats = [e for e in log if e["path"] == CHAT]
    evolutions = [e for e in chats if "should_evolve" in _schema(e)]
    analyses = [e for e in chats if "should_evolve" not in _schema(e)]
    assert len(analyses) == sum(TURNS.values())  # one note per turn
    assert len(evolutions) == sum(TURNS.values()) - 2  # a conversation's first note has none
    # the neighbours an evolution is shown carry their session's time, A-Mem's timestamp
    times = {note_time(s) for c in CONVERSATIONS for s in conversation(dataset, c, 2).sessions}
    assert times == {"202305081356", "202305251314", "202301201604", "202301291432"}
    shown = {
        line.split("talk start time:", 1)[1].split("\t", 1)[0]
        for e in evolutions
        for line in e["body"]["messages"][-1]["content"].splitlines()
        if "talk start time:" in line
    }
    assert shown == times


def test_run_json_reports_what_a_mem_spent_per_conversation(amem_run) -> None:
    out, log = amem_run["out"], amem_run["log"]
    run_json = json.loads((out / "run.json").read_text(encoding="utf-8"))
    signature = run_json["signature"]
    for part in ("run:a-mem|", "a-mem=0.2.", "embedding_dims=64", "llm_model=gpt-4o-mini"):
        assert part in signature
    ingestion = run_json["ingestion"]
    for conversation_id, turns in TURNS.items():
        per = ingestion["per_conversation"][conversation_id]
        usage = per["usage"]
        assert per["items"] == turns and per["wall_s"] > 0
        # per note: analysis, evolution (not the first), its vector, the neighbour lookup
        assert usage["calls"] == turns * 2 - 1 + turns * 2 - 1
        assert usage["output_tokens"] > 0 and usage["embedding_tokens"] > 0
        expected = (
            usage["input_tokens"] * 0.15
            + usage["output_tokens"] * 0.60
            + usage["embedding_tokens"] * 0.02
        ) / 1_000_000  # gpt-4o-mini and text-embedding-3-small list prices
        assert usage["cost_usd"] == pytest.approx(expected, abs=1e-6)
    chats = [e for e in log if e["path"] == CHAT]
    assert ingestion["totals"]["input_tokens"] == sum(
        estimate_tokens(all_text(e["body"]["messages"])) for e in chats
    )
    embeddings = len([e for e in log if e["path"] == EMBEDDINGS])
    assert ingestion["totals"]["calls"] + len(_predictions(out)) + 1 == len(chats) + embeddings


def test_a_rerun_resumes_finished_conversations_and_redoes_an_interrupted_one(
    dataset: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    conv30 = conversation(dataset, "conv-30", 3)
    done = Conversation("conv-30", conv30.speakers, conv30.sessions[2:])  # 14 turns
    cut = conversation(dataset, "conv-26", 2)
    with FakeProvider(FakeConfig(embedding_dims=DIMS)) as fp:

        async def first_run() -> None:
            system = make_system("a-mem", _options(fp), SystemContext(tmp_path))
            for conv in (done, cut):
                await system.reset(conv.conversation_id)
            await system.add(done.sessions[0])
            await system.add(cut.sessions[0])  # then the process dies
            await system.aclose()

        run(first_run())
        fp.reset_counters()
        # ChromaDB writes its index at full capacity, the unused slots whatever the heap held:
        # a copy of the key there, left by a run killed before it closed, is found on resume
        _plant_key(tmp_path, "conv-30")

        async def second_run() -> tuple[bool, bool, int, Any]:
            system = make_system("a-mem", _options(fp), SystemContext(tmp_path))
            finished = await system.already_ingested(done)
            interrupted = await system.already_ingested(cut)
            await system.reset(cut.conversation_id)
            usages = [await system.add(cut.sessions[0])]
            _plant_key(tmp_path, "conv-26")  # and one written during a session, after it
            assert _files_with_key(tmp_path, "conv-26") == ["data_level0.bin"]
            usages += [await system.add(session) for session in cut.sessions[1:]]
            assert _files_with_key(tmp_path, "conv-26") == []  # before the run is closed
            calls = sum(usages, Usage()).calls
            found = await system.search(Query("conv-30", "conv-30#q", "Jon dance studio", 5))
            await system.aclose()
            return finished, interrupted, calls, found

        finished, interrupted, calls, found = run(second_run())
        assert (finished, interrupted) == (True, False)
        chats = requests_to(fp, CHAT)
        assert calls == len(chats) + len(requests_to(fp, EMBEDDINGS)) - 1  # less the search's
        assert len(chats) == 2 * TURNS["conv-26"] - 1  # conv-26's notes again, none of conv-30
    assert len(found.items) == 5
    assert {i.date_raw for i in found.items} == {done.sessions[0].date_raw}
    assert _files_with_key(tmp_path, "") == []


def _files_with_key(folder: Path, conversation_id: str) -> list[str]:
    stores = folder / "a-mem" / "conversations"
    files = [p for p in stores.glob(f"{conversation_id}*/**/*") if p.is_file()]
    return [p.name for p in files if API_KEY.encode() in p.read_bytes()]


def _plant_key(folder: Path, conversation_id: str) -> None:
    """A copy of the key in the unused tail of the conversation's HNSW index file."""
    (index,) = (folder / "a-mem" / "conversations").glob(f"{conversation_id}-*/**/data_level0.bin")
    data = bytearray(index.read_bytes())
    data[-200 : -200 + len(API_KEY)] = API_KEY.encode()
    index.write_bytes(bytes(data))


def test_the_probe_passes_on_a_mem(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    with FakeProvider(FakeConfig(embedding_dims=DIMS)) as fp:
        result = CliRunner().invoke(app, ["probe", "--system", "a-mem", *_cli_options(fp)])
    assert result.exit_code == 0, result.output
    assert "all checks passed" in result.output


def test_an_item_is_the_note_with_its_analysis_or_its_content_alone() -> None:
    metadata = {
        "content": "Jon: I lost my job as a banker.",
        "context": "Jon's career change",
        "keywords": ["job", "banker"],
        "tags": ["career"],
    }
    turn = {
        "dia_id": "D1:2",
        "date_iso": "2023-01-20T16:04",
        "date_raw": "4:04 pm on 20 January, 2023",
    }
    note = note_item(metadata, 0.25, turn, "note")
    assert note.text == (
        "Jon: I lost my job as a banker. (context: Jon's career change; keywords: job, banker; "
        "tags: career)"
    )
    assert (note.score, note.dia_ids, note.date_iso) == (0.75, ("D1:2",), "2023-01-20T16:04")
    assert note_item(metadata, 0.25, turn, "content").text == "Jon: I lost my job as a banker."


def test_a_dry_run_without_the_key_counts_a_mems_ingestion_calls_from_the_turns(
    locomo_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        [
            "run", "--system", "a-mem", "--out", str(out), "--dataset", str(locomo_path),
            "--conversations", "conv-26,conv-30", "--answer-provider", "extractive",
            "--dry-run", "--no-progress",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    # 419 + 369 turns: 4 calls a note, less the first note's lookup and evolution
    assert "ingestion calls, counted from the turns: at least 3,148" in said
    assert "need a key in OPENAI_API_KEY" in said
    assert not out.exists()
