"""`locoscore score` end to end: files written, values, composition, real peer files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.cli import app

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "predictions.jsonl"
runner = CliRunner()


def _rows(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]


def test_example_writes_scores_summary_and_report(tmp_path: Path) -> None:
    result = runner.invoke(app, ["score", str(EXAMPLE), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    rows = _rows(tmp_path)
    assert len(rows) == 12
    first = rows[0]
    assert first["sample_id"] == "demo-1" and first["category_name"] == "single-hop"
    # "She moved to Lisbon." vs "Lisbon": stems she/move/to/lisbon vs lisbon -> P=1/4, R=1
    assert first["f1_locomo"] == pytest.approx(0.4)
    # multi-hop "two cats, a parrot" vs "a parrot, two cats": each gold part finds its twin
    assert rows[3]["f1_locomo"] == 1.0
    # mem0: {she, moved, to, lisbon} vs {lisbon} -> P=1/4, R=1 -> 0.4
    assert first["f1_mem0"] == pytest.approx(0.4)
    assert set(first) >= {"f1_spec", "bleu1_mem0", "search_latency_s", "context_tokens"}
    summary = json.loads((tmp_path / "summary.json").read_text())
    locomo = summary["lexical"]["locomo"]
    assert locomo["signature"].startswith("proto:locomo|")
    f1 = locomo["metrics"]["f1"]
    assert f1["overall"]["count"] == 12 and f1["overall"]["includes_adversarial"] is True
    mem0_f1 = summary["lexical"]["mem0"]["metrics"]["f1"]
    assert mem0_f1["overall"]["count"] == 10  # adversarial excluded under Mem0's protocol
    # question-weighted overall equals the mean of the rows
    assert f1["overall_all"]["question_weighted"] == pytest.approx(
        sum(r["f1_locomo"] for r in rows) / 12
    )
    assert summary["input"]["sha256"] and summary["input"]["format"] == "native"
    report = (tmp_path / "report.md").read_text()
    assert "single-hop" in report and "proto:mem0|" in report


def test_protocols_option_limits_columns(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["score", str(EXAMPLE), "--out", str(tmp_path), "--protocols", "spec"]
    )
    assert result.exit_code == 0, result.output
    row = _rows(tmp_path)[0]
    assert "f1_spec" in row and "f1_locomo" not in row and "bleu1_mem0" not in row


def test_rescoring_keeps_judge_columns_and_section(tmp_path: Path) -> None:
    assert runner.invoke(app, ["score", str(EXAMPLE), "--out", str(tmp_path)]).exit_code == 0
    rows = _rows(tmp_path)
    for row in rows:
        row["j_mean"] = 50.0
    (tmp_path / "scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary = json.loads((tmp_path / "summary.json").read_text())
    summary["judge"] = {"protocol": "binary"}
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    assert runner.invoke(app, ["score", str(EXAMPLE), "--out", str(tmp_path)]).exit_code == 0
    assert all(r["j_mean"] == 50.0 for r in _rows(tmp_path))
    assert json.loads((tmp_path / "summary.json").read_text())["judge"] == {"protocol": "binary"}


def test_memobase_file_joins_all_and_reproduces_recorded_scores(
    tmp_path: Path, peers_dir: Path, locomo_path: Path
) -> None:
    result = runner.invoke(
        app,
        [
            "score",
            str(peers_dir / "memobase_eval_0710_3000.json"),
            "--dataset",
            str(locomo_path),
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    rows = _rows(tmp_path)
    assert len(rows) == 1540
    assert all(r["sample_id"] is not None and r["qa_index"] is not None for r in rows)
    assert sum(r["f1_mem0"] == r["recorded_f1_score"] for r in rows) == 1540
    assert sum(r["bleu1_mem0"] == r["recorded_bleu_score"] for r in rows) == 1540
    join = json.loads((tmp_path / "summary.json").read_text())["join"]
    assert join["matched"] == 1540
    assert join["unmatched"]["count"] == 0 and join["gold_mismatches"]["count"] == 0


def test_zep_file_joins_all(tmp_path: Path, peers_dir: Path, locomo_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "score",
            str(peers_dir / "zep_locomo_grades.json"),
            "--dataset",
            str(locomo_path),
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["input"]["format"] == "zep"
    assert summary["join"]["matched"] == 1540 and summary["join"]["unmatched"]["count"] == 0
    assert summary["lexical"]["mem0"]["metrics"]["f1"]["overall"]["count"] == 1540


def test_console_script_runs_as_a_subprocess(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "locoscore", "score", str(EXAMPLE), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert (
        "single" in proc.stdout
        and "f1 locomo" in proc.stdout
        and (tmp_path / "summary.json").exists()
    )


def _unmatched_file(tmp_path: Path) -> Path:
    path = tmp_path / "unmatched.jsonl"
    path.write_text(
        json.dumps(
            {
                "question": "A question nobody asked?",
                "ground_truth": "x",
                "predicted_answer": "x",
                "category": 4,
            }
        )
        + "\n"
    )
    return path


def test_unmatched_prediction_is_counted_and_still_scored(
    tmp_path: Path, locomo_path: Path
) -> None:
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        ["score", str(_unmatched_file(tmp_path)), "--dataset", str(locomo_path), "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    join = json.loads((out / "summary.json").read_text())["join"]
    assert join["matched"] == 0 and join["unmatched"]["count"] == 1
    assert _rows(out)[0]["f1_locomo"] == 1.0


def test_strict_makes_unmatched_predictions_an_error(tmp_path: Path, locomo_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "locoscore",
            "score",
            str(_unmatched_file(tmp_path)),
            "--dataset",
            str(locomo_path),
            "--out",
            str(out),
            "--strict",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "unmatched.jsonl" in proc.stderr
    assert not out.exists()


def test_bundled_example_covers_all_five_categories_with_latencies(tmp_path: Path) -> None:
    result = runner.invoke(app, ["score", str(EXAMPLE), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    rows = _rows(tmp_path)
    assert sorted({r["category"] for r in rows}) == [1, 2, 3, 4, 5]
    assert all(r["search_latency_s"] > 0 and r["total_latency_s"] > 0 for r in rows)


def test_joined_records_are_scored_with_the_datasets_category_and_gold(
    tmp_path: Path, dataset: Any, locomo_path: Path
) -> None:
    qa = dataset.items[("conv-26", 0)]
    assert qa.category == 2
    record = {
        "sample_id": "conv-26",
        "qa_index": 0,
        "question": qa.question,
        "ground_truth": "an edited gold",
        "predicted_answer": qa.gold_text,
        "category": "single-hop",  # mislabelled: the dataset says temporal
    }
    path = tmp_path / "preds.jsonl"
    path.write_text(json.dumps(record) + "\n")
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["score", str(path), "--dataset", str(locomo_path), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    row = _rows(out)[0]
    assert (row["category"], row["answer"], row["f1_locomo"]) == (2, qa.gold, 1.0)
    join = json.loads((out / "summary.json").read_text())["join"]
    assert join["category_mismatches"]["count"] == 1 and join["gold_mismatches"]["count"] == 1


def test_mem0_protocol_leaves_adversarial_questions_unscored(tmp_path: Path) -> None:
    assert runner.invoke(app, ["score", str(EXAMPLE), "--out", str(tmp_path)]).exit_code == 0
    adversarial = [r for r in _rows(tmp_path) if r["category"] == 5]
    assert len(adversarial) == 2
    assert all(r["f1_mem0"] is None and r["bleu1_mem0"] is None for r in adversarial)
    assert [r["f1_locomo"] for r in adversarial] == [1.0, 0.0]  # abstention phrase rule
    mem0 = json.loads((tmp_path / "summary.json").read_text())["lexical"]["mem0"]
    assert "5" not in mem0["metrics"]["f1"]["by_category"]
