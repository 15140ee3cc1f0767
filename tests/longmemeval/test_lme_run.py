"""`locoscore run --benchmark longmemeval`: what a system receives, what the reader is asked,
and what the folder holds."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing.longmemeval_fixture import make_records, write_fixture

HERE = Path(__file__).resolve().parent


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _run(fake: Any, dataset: Path, out: Path, record: Path, *extra: str) -> Any:
    args = [
        "run", "--benchmark", "longmemeval", "--dataset", str(dataset), "--out", str(out),
        "--system", "python:recording_system:RecordingBM25",
        "--system-option", f"record={record}", "--top-k", "50",
        "--answer-provider", "openai-compatible", "--answer-model", "fake-answerer",
        "--answer-base-url", fake.openai_url, "--no-progress", *extra,
    ]  # fmt: skip
    return CliRunner().invoke(app, args)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_systems_see_only_opaque_ordered_haystacks_and_the_reader_the_date(
    fake: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    dataset = write_fixture(tmp_path / "longmemeval_s.json")
    raw = {r["question_id"]: r for r in make_records()}
    out, record = tmp_path / "run", tmp_path / "calls.jsonl"
    result = _run(fake, dataset, out, record)
    assert result.exit_code == 0, result.output

    calls = [c for c in _jsonl(record) if str(c.get("conversation_id", "")).startswith("lme-")]
    shown = json.dumps(calls)
    for qid, r in raw.items():
        assert qid not in shown
        assert not any(sid in shown for sid in r["haystack_session_ids"])
    assert "has_answer" not in shown and "answer_" not in shown and "_abs" not in shown

    # each haystack: only its own turns, reset first, sessions added in date order
    order = sorted(raw.values(), key=lambda r: 0)  # file order = conversation numbering
    for n, r in enumerate(order, 1):
        cid = f"lme-{n:04d}"
        mine = [c for c in calls if c["conversation_id"] == cid]
        assert mine[0]["kind"] == "reset"
        adds = [c for c in mine if c["kind"] == "add"]
        assert [a["date_raw"] for a in adds] == sorted(r["haystack_dates"])
        assert [a["date_iso"] for a in adds] == sorted(a["date_iso"] for a in adds)
        own = {t["content"] for s in r["haystack_sessions"] for t in s}
        assert {t["text"] for a in adds for t in a["turns"]} == own
        (search,) = [c for c in mine if c["kind"] == "search"]
        assert search["question_id"] == f"{cid}-q"
        assert (
            search["date_iso"]
            == r["question_date"].replace("/", "-")[:10] + "T" + r["question_date"][-5:]
        )

    # the reader is told the current date, before the question
    prompts = [
        e["body"]["messages"][-1]["content"]
        for e in fake.requests_log
        if e["path"] == "/v1/chat/completions"
    ]
    assert len(prompts) == 10
    ms = next(p for p in prompts if "How many museums" in p)
    assert "Current date: 2023/05/16 (Tue) 15:52\nQuestion: How many museums did I visit" in ms

    preds = {p["question_id"]: p for p in _jsonl(out / "predictions.jsonl")}
    assert set(preds) == set(raw)
    p = preds["5d1a6c3e"]
    assert p["question_type"] == "multi-session" and p["abstention"] is False and p["answer"] == 3
    assert preds["a3f9c2d1_abs"]["abstention"] is True
    sources = [s for item in p["retrieved"] for s in item["sources"]]
    assert {
        "session_id": "answer_5d1a6c3e_2",
        "turn_key": "answer_5d1a6c3e_2_1",
        "role": "user",
    } in sources
    hyps = _jsonl(out / "hypotheses.jsonl")
    assert [h["question_id"] for h in hyps] == list(raw)
    assert set(hyps[0]) == {"question_id", "hypothesis"}
    run = json.loads((out / "run.json").read_text())
    assert run["benchmark"] == "longmemeval" and "|bench:longmemeval-unknown@" in run["signature"]
    summary = json.loads((out / "summary.json").read_text())
    retrieval = summary["retrieval"]
    # 4 abstentions and the single-session-assistant question (its evidence is an assistant
    # turn: the official retriever indexes user turns only) are skipped
    assert retrieval["skipped"] == {"abstention": 4, "no_gold": 1, "unattributed": 0}
    assert retrieval["scored"] == 5
    # every haystack holds at most 9 user turns: top 50 finds every gold item
    assert retrieval["overall"]["turn"]["recall_all@50"] == 1.0


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_the_dry_run_counts_the_prompts(
    fake: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    dataset = write_fixture(tmp_path / "s.json")
    out = tmp_path / "dry"
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"fake-answerer": {"input": 1.0, "output": 2.0}}))
    result = _run(fake, dataset, out, tmp_path / "c.jsonl", "--dry-run", "--prices", str(prices))
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    match = re.search(r"answer calls to make: 10 .* estimated tokens: ([\d,]+) in, 200 out", text)
    assert match is not None, text
    tokens_in = int(match.group(1).replace(",", ""))
    assert f"estimated cost: ${(tokens_in * 1.0 + 200 * 2.0) / 1e6:.2f}" in text, text
    assert not any(e["path"] == "/v1/chat/completions" for e in fake.requests_log)


def test_a_run_on_a_bad_file_writes_nothing(fake: Any, tmp_path: Path) -> None:
    records = make_records()
    records[4]["haystack_dates"][1] = "May 2023"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(records))
    out = tmp_path / "run"
    result = _run(fake, bad, out, tmp_path / "calls.jsonl")
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "record 5d1a6c3e, field 'haystack_dates[1]': unparseable date 'May 2023'" in text
    assert not out.exists() and fake.requests_log == []
