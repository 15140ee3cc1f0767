"""`locoscore run --benchmark beam` on two real conversations: what a system receives (no
generation marker, no ability in an id, sessions in order and dated), what the reader is
asked (the current date), and the folder's evidence recall on `source_chat_ids`."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.benchmarks.beam.data import load_beam
from locoscore.cli import app
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

BEAM_100K = Path(__file__).resolve().parents[2] / "../shared/data/beam/100K"
RECORDING = Path(__file__).resolve().parents[1] / "longmemeval"
pytestmark = pytest.mark.skipif(not BEAM_100K.exists(), reason="BEAM 100K not at ../shared")


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def two_conversations(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("beam") / "100K"
    for name in ("1", "5"):  # 5 has a truncated chat
        shutil.copytree(BEAM_100K / name, root / name)
    return root


def test_run_on_two_real_conversations(
    two_conversations: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(RECORDING))
    prompts: list[str] = []

    def answer(prompt: str) -> str:
        prompts.append(prompt)
        return "I do not know."

    out, record = tmp_path / "run", tmp_path / "calls.jsonl"
    with FakeProvider(FakeConfig(timeout_s=5.0, answer=answer)) as fake:
        result = CliRunner().invoke(
            app,
            [
                "run",
                "--benchmark",
                "beam",
                "--dataset",
                str(two_conversations),
                "--out",
                str(out),
                "--system",
                "python:recording_system:RecordingBM25",
                "--system-option",
                f"record={record}",
                "--top-k",
                "10",
                "--answer-provider",
                "openai-compatible",
                "--answer-model",
                "fake-answerer",
                "--answer-base-url",
                fake.openai_url,
                "--no-progress",
                "--skip-probe",
            ],
        )
    assert result.exit_code == 0, result.output
    data = load_beam(two_conversations)
    calls = _jsonl(record)
    shown = json.dumps(calls)
    assert "->->" not in shown
    searches = [c for c in calls if c["kind"] == "search"]
    # ids never name the ability (BEAM's own ids do: `1:abstention:0`)
    assert all(re.fullmatch(r"beam-q-[0-9a-f]{12}", s["question_id"]) for s in searches)
    assert not any(q.question_id in shown for q in load_beam(two_conversations).questions)
    adds = [c for c in calls if c["kind"] == "add"]
    for conversation in data.conversations:
        mine = [a for a in adds if a["conversation_id"] == conversation.conversation_id]
        assert [a["session_index"] for a in mine] == [s.index for s in conversation.sessions]
        assert all(a["date_iso"] for a in mine)
        texts = [t["text"] for a in mine for t in a["turns"]]
        assert texts == [t.text for s in conversation.sessions for t in s.turns]
    assert len(searches) == len(prompts) == 40
    # the reader is told the current date: the last session's anchor
    last = {c.conversation_id: c.sessions[-1].date_iso for c in data.conversations}
    assert {s["date_iso"] for s in searches} == set(last.values())
    assert all(re.search(r"Today's date: \d{4}-\d{2}-\d{2}", p) for p in prompts)

    predictions = _jsonl(out / "predictions.jsonl")
    assert {p["question_id"] for p in predictions} == {q.question_id for q in data.questions}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["answers"] == {"questions": 40, "answered": 40, "failed": 0}
    # recall@10 recomputed from the predictions' retrieved ids
    by_id = {q.question_id: q for q in data.questions}
    values = []
    for p in predictions:
        evidence = by_id[p["question_id"]].evidence
        if evidence:
            found = {d for item in p["retrieved"][:10] for d in item["dia_ids"]}
            values.append(sum(e in found for e in evidence) / len(evidence))
    assert summary["evidence_recall"]["@10"]["overall"] == pytest.approx(sum(values) / len(values))
    with_evidence = sum(1 for q in data.questions if q.evidence)
    assert summary["evidence_recall"]["@10"]["n"] == len(values) == with_evidence == 36
    assert summary["run"]["signature"].count("bench:beam-100k-trunc@") == 1
    # BEAM's answer budget (its summaries' golds run to 280 tokens; 128 cut them): sent with
    # every answer call and named in the signature and run.json
    assert "|max_tokens:512" in summary["run"]["signature"]
    run_json = json.loads((out / "run.json").read_text())
    assert run_json["answer"]["max_tokens"] == 512
    assert "|max_tokens:512" in run_json["signature"]
    bodies = [r["body"] for r in fake.requests_log if r["path"].endswith("/chat/completions")]
    sent = {b.get("max_tokens", b.get("max_completion_tokens")) for b in bodies}
    assert len(bodies) == 40 and sent == {512}


def test_run_judge_report_end_to_end(two_conversations: Path, tmp_path: Path) -> None:
    from beam_helpers import rule

    def echo(prompt: str) -> str:
        match = re.search(r"^\[1\] \(session of [^)]*\) (.*)$", prompt, re.MULTILINE)
        return match.group(1)[:300] if match else "I do not know."

    out = tmp_path / "run"
    runner = CliRunner()
    with FakeProvider(FakeConfig(timeout_s=5.0, answer=echo, verdict=rule)) as fake:
        ran = runner.invoke(
            app,
            [
                "run",
                "--benchmark",
                "beam",
                "--dataset",
                str(two_conversations),
                "--out",
                str(out),
                "--system",
                "bm25",
                "--top-k",
                "5",
                "--answer-provider",
                "openai-compatible",
                "--answer-model",
                "fake-answerer",
                "--answer-base-url",
                fake.openai_url,
                "--no-progress",
                "--skip-probe",
            ],
        )
        assert ran.exit_code == 0, ran.output
        judge = [
            "judge",
            str(out / "predictions.jsonl"),
            "--benchmark",
            "beam",
            "--dataset",
            str(two_conversations),
            "--out",
            str(out),
            "--base-url",
            fake.url,
            "--runs",
            "1",
            "--no-progress",
        ]
        dry = runner.invoke(app, [*judge, "--dry-run"])
        assert dry.exit_code == 0, dry.output
        assert fake.generation_calls == 40  # the answers only
        judged = runner.invoke(app, judge)
        assert judged.exit_code == 0, judged.output
        made = fake.generation_calls - 40
        bad = runner.invoke(app, [*judge, "--protocol", "binary"])
    planned = int(re.search(r"calls to make: ([\d,]+)", dry.output).group(1).replace(",", ""))
    summary = json.loads((out / "summary.json").read_text())
    section = summary["judge"]
    short_circuited = section["calls"]["graded_0_without_a_call"]
    assert planned == made == section["calls"]["made"]
    # every answered question's rubric items, plus event-order pairs, minus trivial ones
    predictions = _jsonl(out / "predictions.jsonl")
    data = load_beam(two_conversations)
    by_id = {q.question_id: q for q in data.questions}
    expected = 0
    for p in predictions:
        q = by_id[p["question_id"]]
        expected += len(q.rubric)
        if q.ability == "event_ordering":
            lines = [line for line in p["prediction"].split("\n") if line.strip()]
            expected += len(lines) * len(q.rubric)
    assert made + short_circuited == expected
    assert section["signature"].startswith("judge:beam|half:kept|question:shown")
    assert section["questions"] == 40 and section["missing"] == 0
    assert summary["run"]["signature"]  # the run's section kept beside the judge's
    scores = _jsonl(out / "scores.jsonl")
    assert len(scores) == 40 and all("beam_score" in row for row in scores)
    report = (out / "report.md").read_text()
    assert report.index("Mean of the ten abilities") < report.index("## Abilities")
    assert "(as cited" in report and "judge:beam|" in report
    assert bad.exit_code == 2 and "scored with --protocol beam, beam-official" in bad.output
    (out / "report.md").unlink()
    rebuilt = runner.invoke(
        app, ["report", str(out), "--benchmark", "beam", "--dataset", str(two_conversations)]
    )
    assert rebuilt.exit_code == 0, rebuilt.output
    assert (out / "report.md").read_text() == report
