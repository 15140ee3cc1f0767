"""`locoscore score` on unusual but legal inputs, and on an --out that cannot take results.

Every expected value is worked out by hand in the comments.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.cli import app

runner = CliRunner()

UNUSUAL = [
    # unicode on both sides, a category name with an underscore, latencies in milliseconds
    {
        "question": "Où est allée Zoë ?",
        "ground_truth": "à Zürich, café",
        "predicted_answer": "Zürich café ☕",
        "category": "single_hop",
        "search_latency_ms": 120,
        "total_latency_ms": 900,
        "context_tokens": 321,
    },
    # an int gold, a digit-string category
    {"question": "Which year?", "ground_truth": 2022, "predicted_answer": "2022", "category": "2"},
    # an empty prediction, aliases for gold and prediction
    {"question": "Which pets?", "answer": "a cat, a dog", "response": "", "category": "multi-hop"},
    # category 5 given by name, gold only as adversarial_answer
    {
        "question": "Did she sell it?",
        "adversarial_answer": "Yes",
        "prediction": "Not mentioned in the conversation",
        "category": "adversarial",
    },
    # category 3 with a reason after ';', name with a space and capitals
    {
        "question": "Would she like it?",
        "ground_truth": "likely yes; because she loves it",
        "predicted_answer": "Likely yes",
        "category": "Open Domain",
    },
]


def _score(tmp_path: Path, records: list[dict[str, Any]], *args: str) -> Any:
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return runner.invoke(app, ["score", str(path), "--out", str(tmp_path / "out"), *args])


def _rows(tmp_path: Path) -> list[dict[str, Any]]:
    text = (tmp_path / "out" / "scores.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


@pytest.fixture
def unusual(tmp_path: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    result = _score(tmp_path, UNUSUAL)
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    return _rows(tmp_path), summary


def test_fields_are_kept_as_given(unusual: tuple[list[dict[str, Any]], dict[str, Any]]) -> None:
    rows, _ = unusual
    assert [r["category"] for r in rows] == [4, 2, 1, 5, 3]
    assert rows[0]["question"] == "Où est allée Zoë ?" and rows[0]["prediction"] == "Zürich café ☕"
    assert (rows[0]["search_latency_s"], rows[0]["total_latency_s"]) == (0.12, 0.9)
    assert rows[1]["answer"] == 2022  # the int gold stays an int in scores.jsonl
    assert rows[3]["gold_field"] == "adversarial_answer" and rows[3]["answer"] == "Yes"


def test_unicode_answer_scores(unusual: tuple[list[dict[str, Any]], dict[str, Any]]) -> None:
    row = unusual[0][0]
    # locomo: pred {zürich, café, ☕} vs gold {à, zürich, café} (comma dropped): 2 of 3 each
    assert row["f1_locomo"] == pytest.approx(2 / 3)
    # mem0: the same two-of-three sets
    assert row["f1_mem0"] == pytest.approx(2 / 3)
    # spec: '☕' is not a word character and is removed: P = 2/2, R = 2/3 -> 0.8
    assert row["f1_spec"] == pytest.approx(0.8)
    # BLEU-1: 2 of 3 predicted tokens match; ref has 4 tokens (à zürich , café): BP exp(1-4/3)
    assert row["bleu1_mem0"] == pytest.approx(2 / 3 * math.exp(-1 / 3))


def test_int_gold_scores_as_its_string(
    unusual: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    row = unusual[0][1]
    assert (row["f1_locomo"], row["f1_mem0"], row["bleu1_mem0"], row["f1_spec"]) == (1, 1, 1, 1)


def test_empty_prediction_scores_zero(unusual: tuple[list[dict[str, Any]], dict[str, Any]]) -> None:
    row = unusual[0][2]
    assert (row["f1_locomo"], row["f1_mem0"], row["bleu1_mem0"], row["f1_spec"]) == (0, 0, 0, 0)


def test_adversarial_and_open_domain_rules(
    unusual: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    adversarial, open_domain = unusual[0][3], unusual[0][4]
    assert adversarial["f1_locomo"] == 1.0  # "not mentioned" detected
    assert open_domain["f1_locomo"] == 1.0  # gold cut at ';' -> "likely yes"
    # mem0 splits on . , ! ? only: {likely, yes} vs {likely, yes;, because, she, loves, it}
    # common 1: P = 1/2, R = 1/6 -> 0.25
    assert open_domain["f1_mem0"] == pytest.approx(0.25)


def test_summary_overall_conventions(unusual: tuple[list[dict[str, Any]], dict[str, Any]]) -> None:
    lexical = unusual[1]["lexical"]
    locomo = lexical["locomo"]["metrics"]["f1"]
    # (2/3 + 1 + 0 + 1 + 1) / 5, adversarial included
    assert locomo["overall"]["mean"] == pytest.approx((2 / 3 + 3) / 5)
    assert locomo["overall_no_adversarial"]["question_weighted"] == pytest.approx((2 / 3 + 2) / 4)
    mem0 = lexical["mem0"]["metrics"]["f1"]
    # (2/3 + 1 + 0 + 0.25) / 4, adversarial excluded
    assert mem0["overall"] == {
        "mean": pytest.approx((2 / 3 + 1.25) / 4),
        "count": 4,
        "includes_adversarial": False,
    }


def test_out_that_is_a_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("keep me")
    result = _score(tmp_path, UNUSUAL[:1])
    assert result.exit_code == 2
    assert "field '--out': exists and is not a folder" in result.output
    assert (tmp_path / "out").read_text() == "keep me"


@pytest.mark.parametrize(
    ("name", "content", "where"),
    [
        ("scores.jsonl", '{"sample_id": null}\n{broken\n', "scores.jsonl, line 2: "),
        ("scores.jsonl", "[1, 2]\n", "scores.jsonl, line 1: "),
        ("summary.json", "[1, 2]\n", "summary.json: "),
        ("summary.json", "{oops", "summary.json: "),
    ],
    ids=["scores-broken-line", "scores-not-object", "summary-not-object", "summary-broken"],
)
def test_unreadable_earlier_results_are_refused_and_left_alone(
    tmp_path: Path, name: str, content: str, where: str
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / name).write_text(content)
    result = _score(tmp_path, UNUSUAL[:1])
    assert result.exit_code == 2, result.output
    assert where in result.output and "earlier results" in result.output
    assert sorted(p.name for p in out.iterdir()) == [name]
    assert (out / name).read_text() == content


def _real_records(locomo_path: Path) -> list[dict[str, Any]]:
    sample = json.loads(locomo_path.read_text())[0]
    qa = sample["qa"][1]  # conv-26#1: an int gold (2022), category 2
    record = {
        "sample_id": "conv-26",
        "qa_index": 1,
        "question": qa["question"],
        "ground_truth": qa["answer"],
        "predicted_answer": "2022",
        "category": qa["category"],
    }
    return [record]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "locoscore", *args], capture_output=True, text=True, timeout=120
    )


def test_int_gold_joins_the_dataset_without_a_mismatch(tmp_path: Path, locomo_path: Path) -> None:
    records = _real_records(locomo_path)
    records[0]["ground_truth"] = "2022"  # str form of the dataset's int: the same gold
    result = _score(tmp_path, records, "--dataset", str(locomo_path), "--strict")
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["join"]["matched"] == 1


@pytest.mark.parametrize(
    ("change", "field"),
    [({"ground_truth": "2021"}, "answer"), ({"category": 4}, "category")],
    ids=["gold", "category"],
)
def test_strict_makes_a_mismatch_an_error(
    tmp_path: Path, locomo_path: Path, change: dict[str, Any], field: str
) -> None:
    records = _real_records(locomo_path)
    records[0].update(change)
    path = tmp_path / "preds.jsonl"
    path.write_text(json.dumps(records[0]) + "\n")
    out = tmp_path / "out"
    proc = _run("score", str(path), "--dataset", str(locomo_path), "--out", str(out), "--strict")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert lines[0].startswith(f"error: {path}, line 1, field '{field}': join with the dataset")
    assert not out.exists()
    # without --strict the same file is scored and the mismatch counted
    proc = _run("score", str(path), "--dataset", str(locomo_path), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    join = json.loads((out / "summary.json").read_text())["join"]
    assert join[f"{'gold' if field == 'answer' else field}_mismatches"]["count"] == 1


def test_dataset_info_on_a_missing_file_is_one_line(tmp_path: Path) -> None:
    proc = _run("dataset", "info", "--dataset", str(tmp_path / "none.json"))
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"error: {tmp_path / 'none.json'}: dataset file not found"
