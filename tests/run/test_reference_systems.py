"""The reference systems: `no-memory` (the floor) sends the answer step the question and no
conversation text; `gold-evidence` (the retrieval ceiling) retrieves exactly the benchmark's
gold turns, on LoCoMo, LongMemEval and BEAM; a benchmark naming no evidence is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from run_helpers import answer_requests, predictions, run_cli
from typer.testing import CliRunner

from locoscore.benchmarks import get_benchmark
from locoscore.cli import app
from locoscore.testing.longmemeval_fixture import write_fixture

BEAM_100K = Path(__file__).resolve().parents[2] / "../shared/data/beam/100K"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _fake_args(fake: Any) -> list[str]:
    return [
        "--answer-provider", "openai-compatible", "--answer-model", "fake-answerer",
        "--answer-base-url", fake.openai_url,
    ]  # fmt: skip


def _prompts(fake: Any) -> list[str]:
    return [e["body"]["messages"][-1]["content"] for e in answer_requests(fake)]


def _run_json(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "run.json").read_text())
    return data


def _turn_lines(benchmark: str, dataset: Path, conversation_ids: set[str]) -> set[str]:
    bench = get_benchmark(benchmark)
    data = bench.load(dataset)
    return {
        turn.render()
        for c in bench.conversations(data)
        if c.conversation_id in conversation_ids
        for s in c.sessions
        for turn in s.turns
    }


def test_no_memory_prompts_hold_the_question_and_no_conversation_text(
    fake: Any, locomo_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "floor"
    result = run_cli(
        "--system", "no-memory", "--out", str(out), "--dataset", str(locomo_path),
        "--limit", "12", *_fake_args(fake),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    records = predictions(out)
    prompts = _prompts(fake)
    assert len(records) == len(prompts) == 12
    turns = _turn_lines("locomo", locomo_path, {r["sample_id"] for r in records})
    for record in records:
        (prompt,) = [p for p in prompts if f"Question: {record['question']}\n" in p]
        assert "Retrieved memories:\n(no memories were retrieved)\n" in prompt
        assert not [t for t in turns if t in prompt]  # not one line of the conversation
        assert record["retrieved"] == [] and record["evidence_recall"] is None
    run = _run_json(out)
    assert run["signature"].startswith("run:no-memory|opts:default|top_k:n/a|budget:n/a|")
    assert run["system"]["reference"] == "floor"
    assert run["top_k"] is None
    assert run["probe"] == {
        "system": "no-memory",
        "skipped": "no-memory is the floor, not an integration to test",
    }


def test_no_memory_gives_the_reader_the_question_date_and_resumes(
    fake: Any, tmp_path: Path
) -> None:
    data = write_fixture(tmp_path / "lme.json")
    out = tmp_path / "floor"
    args = ["--benchmark", "longmemeval", "--system", "no-memory", "--out", str(out),
            "--dataset", str(data), *_fake_args(fake)]  # fmt: skip
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    meta = {m.question_id: m for m in get_benchmark("longmemeval").load(data).questions}
    prompts = _prompts(fake)
    assert len(prompts) == 10
    haystacks = {f"lme-{m.position + 1:04d}" for m in meta.values()}  # every question's
    turns = _turn_lines("longmemeval", data, haystacks)
    for record in predictions(out):
        question = meta[record["question_id"]]
        (prompt,) = [p for p in prompts if f"Question: {question.question}\n" in p]
        assert f"Current date: {question.date_raw}\n" in prompt
        assert not [t for t in turns if t in prompt]
    before = (out / "predictions.jsonl").read_text()
    fake.reset_counters()
    assert run_cli(*args).exit_code == 0  # the same command again: nothing left to ask
    assert answer_requests(fake) == []
    assert (out / "predictions.jsonl").read_text() == before


def _gold_ids(record: dict[str, Any]) -> list[str]:
    return [d for item in record["retrieved"] for d in item["dia_ids"]]


def test_gold_evidence_retrieves_exactly_the_locomo_evidence_turns(
    locomo_path: Path, tmp_path: Path
) -> None:
    # conv-49 holds the questions with the most evidence turns (19, 17, 11, 11): more than
    # the default top-k of 10, all of them returned
    out = tmp_path / "ceiling"
    result = run_cli(
        "--system", "gold-evidence", "--out", str(out), "--dataset", str(locomo_path),
        "--conversations", "conv-49", "--answer-provider", "extractive",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    records = predictions(out)
    assert len(records) == 196
    with_evidence = [r for r in records if r["evidence"]]
    assert len(with_evidence) == 196
    by_id = {r["question_id"]: r for r in records}
    assert len(by_id["conv-49#11"]["retrieved"]) == 19
    turns = _turn_lines("locomo", locomo_path, {"conv-49"})
    for record in with_evidence:
        assert record["evidence_recall"] == 1.0
        assert sorted(_gold_ids(record)) == sorted(set(record["evidence"]))
        # turn items, as a turn retrieval returns them: one turn's line each, no score
        assert all(i["text"] in turns and i["score"] is None for i in record["retrieved"])
        # in conversation order (D<session>:<turn>), not in the order evidence lists them
        order = [tuple(int(x) for x in d[1:].split(":")) for d in _gold_ids(record)]
        assert order == sorted(order)
    run = _run_json(out)
    assert run["measures"]["evidence_recall"]["overall"] == {"n": 196, "mean": 1.0, "median": 1.0}
    assert run["signature"].startswith("run:gold-evidence|opts:default|top_k:n/a|budget:n/a|")
    assert run["system"]["reference"] == "retrieval ceiling"
    assert run["probe"]["skipped"].startswith("gold-evidence is the retrieval ceiling")


def test_gold_evidence_on_longmemeval_gives_marked_turns_else_the_answer_session(
    tmp_path: Path,
) -> None:
    data = write_fixture(tmp_path / "lme.json")
    out = tmp_path / "ceiling"
    result = run_cli(
        "--benchmark", "longmemeval", "--system", "gold-evidence", "--out", str(out),
        "--dataset", str(data), "--answer-provider", "extractive",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    records = {r["question_id"]: r for r in predictions(out)}
    marked = [r for r in records.values() if r["evidence"]]
    assert len(marked) == 6
    for record in marked:
        assert record["evidence_recall"] == 1.0
        assert _gold_ids(record) == record["evidence"]
    # no turn marked has_answer: every turn of the answer session (the fixture's `_abs`
    # questions have one two-turn evidence session each, placed by date among the fillers)
    assert _gold_ids(records["a3f9c2d1_abs"]) == ["S2:1", "S2:2"]
    assert _gold_ids(records["gpt4_9e8d7c6b_abs"]) == ["S3:1", "S3:2"]
    # only opaque ids, as any retrieval: no dataset session id in what the system returned
    # (the outputs add every item's `sources`, the dataset's names, for any system) nor in
    # the signature
    sessions = {s.session_id for m in get_benchmark("longmemeval").load(data).questions
                for s in m.sessions}  # fmt: skip
    for record in records.values():
        shown = [{k: v for k, v in i.items() if k != "sources"} for i in record["retrieved"]]
        assert not [s for s in sessions if s in json.dumps(shown)]
    assert not [s for s in sessions if s in _run_json(out)["signature"]]
    # the official retrieval metrics see every gold session and turn
    retrieval = json.loads((out / "summary.json").read_text())["retrieval"]["overall"]
    assert retrieval["session"]["recall_all@10"] == 1.0
    assert retrieval["turn"]["recall_all@10"] == 1.0


@pytest.mark.skipif(not BEAM_100K.exists(), reason="BEAM 100K not at ../shared")
def test_gold_evidence_on_beam_gives_the_source_chats(tmp_path: Path) -> None:
    root = tmp_path / "100K"
    for name in ("1", "5"):  # 5 has a truncated chat
        shutil.copytree(BEAM_100K / name, root / name)
    out = tmp_path / "ceiling"
    result = run_cli(
        "--benchmark", "beam", "--system", "gold-evidence", "--out", str(out),
        "--dataset", str(root), "--answer-provider", "extractive",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    records = predictions(out)
    assert len(records) == 40
    with_evidence = [r for r in records if r["evidence"]]
    # the abstention questions have none by design (4 of the 40); every other has its
    # source_chat_ids
    assert len(with_evidence) == 36
    for record in records:
        assert sorted(_gold_ids(record), key=int) == sorted(record["evidence"], key=int)
    assert all(r["evidence_recall"] == 1.0 for r in with_evidence)
    assert _run_json(out)["measures"]["evidence_recall"]["overall"]["mean"] == 1.0


def test_a_benchmark_without_evidence_refuses_gold_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    from tiny_benchmark import DATA  # type: ignore[import-not-found]

    bare = {
        "conversations": DATA["conversations"],
        "questions": [{k: v for k, v in q.items() if k != "evidence"} for q in DATA["questions"]],
    }
    data = tmp_path / "no-evidence.json"
    data.write_text(json.dumps(bare))
    out = tmp_path / "ceiling"
    result = run_cli(
        "--benchmark", "python:tiny_benchmark:BENCHMARK", "--dataset", str(data),
        "--system", "gold-evidence", "--answer-provider", "extractive", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert "--system gold-evidence: benchmark tiny names no gold evidence" in lines[0]
    assert not out.exists()  # nothing written
    # the floor still runs on it
    floor = tmp_path / "floor"
    result = run_cli(
        "--benchmark", "python:tiny_benchmark:BENCHMARK", "--dataset", str(data),
        "--system", "no-memory", "--answer-provider", "extractive", "--out", str(floor),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads((floor / "summary.json").read_text())["metric"]["overall"]["mean"] == 0.0


@pytest.mark.parametrize(
    ("system", "role"), [("no-memory", "floor"), ("gold-evidence", "retrieval ceiling")]
)
def test_probe_and_serve_refuse_a_reference_system_in_one_line(system: str, role: str) -> None:
    result = CliRunner().invoke(app, ["probe", "--system", system])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"error: --system {system}: the {role}, a reference system that stores nothing of its "
        "own: the probe does not apply (a run records it as not run)"
    ]
    result = CliRunner().invoke(app, ["serve", "--system", system, "--port", "0"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"error: --system {system}: the {role}, a reference system: it is run as "
        f"`locoscore run --system {system}`, not served"
    ]


def test_both_are_ordinary_rows_of_the_board(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the tiny example with the extractive answerer: gold-evidence answers each question
    # with its evidence turn, which holds the three facts' answers (Miso, Lisbon, the cello)
    # and none of the three dates; no-memory answers nothing. Gold recall: 50.0 and 0.0.
    monkeypatch.syspath_prepend(str(EXAMPLES))
    folders = {s: tmp_path / s for s in ("gold-evidence", "no-memory")}
    for system, out in folders.items():
        result = run_cli(
            "--benchmark", "python:tiny_benchmark:BENCHMARK", "--system", system,
            "--answer-provider", "extractive", "--out", str(out),
        )  # fmt: skip
        assert result.exit_code == 0, result.output
    board = tmp_path / "board"
    result = CliRunner().invoke(app, ["board", *map(str, folders.values()), "--out", str(board)])
    assert result.exit_code == 0, result.output
    rows = {
        Path(row["folder"]).name: row
        for group in json.loads((board / "board.json").read_text())["groups"]
        for row in group["rows"]
    }
    assert set(rows) == {"gold-evidence", "no-memory"}
    for system, mean, recall in (("gold-evidence", 50.0, 1.0), ("no-memory", 0.0, None)):
        assert rows[system]["system"] == system
        assert rows[system]["metrics"]["metric"]["overall"]["mean"] == mean
        assert rows[system]["evidence_recall"] == recall
