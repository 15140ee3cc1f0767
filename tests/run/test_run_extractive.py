"""`locoscore run --answer-provider extractive`: the whole pipeline on real data, no key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from run_helpers import predictions, run_cli

import locoscore
from locoscore.benchmarks.locomo.data.conversations import locomo_conversations


@pytest.fixture(scope="module")
def extractive_run(tmp_path_factory: pytest.TempPathFactory, locomo_path: Path) -> Path:
    out = tmp_path_factory.mktemp("extractive")
    result = run_cli(
        "--system", "bm25", "--out", str(out), "--dataset", str(locomo_path),
        "--conversations", "conv-26,conv-30", "--answer-provider", "extractive",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def test_every_question_of_the_chosen_conversations_is_answered(extractive_run: Path) -> None:
    records = predictions(extractive_run)
    assert len(records) == 199 + 105
    assert [r["qa_index"] for r in records if r["sample_id"] == "conv-30"] == list(range(105))
    assert all(r["error"] is None for r in records)


def test_the_extractive_answer_is_the_top_retrieved_item(extractive_run: Path) -> None:
    first = predictions(extractive_run)[0]
    assert first["question_id"] == "conv-26#0"
    # hand-checked: BM25 ranks D1:3 first for "When did Caroline go to the LGBTQ support group?"
    assert first["retrieved"][0]["dia_ids"] == ["D1:3"]
    assert first["prediction"] == (
        "Caroline: I went to a LGBTQ support group yesterday and it was so powerful."
    )
    assert first["retrieved"][0]["date_raw"] == "1:56 pm on 8 May, 2023"
    assert first["evidence_recall"] == 1.0 and len(first["retrieved"]) == 10


def test_retrieval_never_crosses_conversations(extractive_run: Path, dataset: object) -> None:
    turns = {
        c.conversation_id: {t.render() for s in c.sessions for t in s.turns}
        for c in locomo_conversations(dataset)  # type: ignore[arg-type]
    }
    for record in predictions(extractive_run):
        own = turns[record["sample_id"]]
        assert all(item["text"] in own for item in record["retrieved"]), record["question_id"]


def test_evidence_recall_is_the_share_of_evidence_turns_retrieved(extractive_run: Path) -> None:
    for record in predictions(extractive_run):
        evidence = record["evidence"]
        if not evidence:
            assert record["evidence_recall"] is None
            continue
        found = {d for item in record["retrieved"] for d in item["dia_ids"]}
        expected = sum(e in found for e in evidence) / len(evidence)
        assert record["evidence_recall"] == pytest.approx(expected, abs=1e-6)


def test_summary_f1_equals_the_official_f1_of_the_written_predictions(
    extractive_run: Path,
) -> None:
    records = predictions(extractive_run)
    expected = sum(
        locoscore.score_f1(r["prediction"], str(r["answer"]), r["category"]) for r in records
    ) / len(records)
    summary = json.loads((extractive_run / "summary.json").read_text())
    overall = summary["lexical"]["locomo"]["metrics"]["f1"]["overall"]
    assert overall["count"] == 304
    assert overall["mean"] == pytest.approx(expected, abs=1e-9)
    # the official F1 of adversarial items rewards abstention; an extracted turn never abstains
    cat5 = summary["lexical"]["locomo"]["metrics"]["f1"]["by_category"]["5"]
    assert cat5["mean"] == 0.0


def test_run_json_and_summary_carry_the_run_signature(extractive_run: Path) -> None:
    run = json.loads((extractive_run / "run.json").read_text())
    summary = json.loads((extractive_run / "summary.json").read_text())
    signature = run["signature"]
    assert signature.startswith("run:bm25|opts:b=0.75,granularity=turn,k1=1.5|top_k:10|")
    assert "|answer:extractive|" in signature and "|tok:tiktoken:cl100k_base|" in signature
    assert "|bench:locomo10@79fa87e90f04|adv:yes|" in signature
    assert summary["run"]["signature"] == signature
    assert signature in (extractive_run / "report.md").read_text()
    assert run["ingestion"]["per_conversation"]["conv-30"]["sessions"] == 19
    assert run["ingestion"]["per_conversation"]["conv-30"]["turns"] == 369


def test_context_tokens_count_the_context_as_placed(extractive_run: Path) -> None:
    from locoscore.run.placed_context import render_item
    from locoscore.systems.base import MemoryItem
    from locoscore.tokens import count_tokens

    record = predictions(extractive_run)[5]
    items = [MemoryItem.from_json(item) for item in record["retrieved"]]
    text = "\n".join(render_item(i + 1, item) for i, item in enumerate(items))
    assert record["context_tokens"] == count_tokens(text)


def test_with_the_errata_the_run_reports_the_verified_gold_view(
    tmp_path: Path, locomo_path: Path
) -> None:
    errata = locomo_path.parent / "errata" / "locomo-audit-errors.json"
    out = tmp_path / "verified"
    result = run_cli(
        "--system", "bm25", "--out", str(out), "--dataset", str(locomo_path),
        "--conversations", "conv-26", "--answer-provider", "extractive",
        "--errata", str(errata),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    flagged = summary["errata"]["flagged"]
    conv26 = {k: v for k, v in flagged.items() if k.startswith("conv-26#")}
    score_changing = [k for k, v in conv26.items() if v != "WRONG_CITATION"]
    view = summary["report"]["verified_gold"]
    assert view["questions"] == 199 - len(score_changing)
    assert view["excluded"] == len(score_changing) > 0
