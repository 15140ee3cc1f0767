"""Bad input: one line naming file, record and field; exit 2; no traceback; nothing written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

GOOD = '{"question": "Q?", "ground_truth": "A", "predicted_answer": "A", "category": 4}'

CASES: dict[str, tuple[str, str]] = {
    # name: (file content, a fragment the error line must contain)
    "not_json": ("{not json", "line 1"),
    "empty_file": ("", "empty"),
    "top_level_number": ("42", ""),
    "missing_question": (
        '{"ground_truth": "A", "predicted_answer": "A", "category": 4}',
        "question",
    ),
    "missing_prediction": (
        '{"question": "Q", "ground_truth": "A", "category": 4}',
        "predicted_answer",
    ),
    "missing_gold": ('{"question": "Q", "predicted_answer": "A", "category": 4}', "ground_truth"),
    "missing_category": (
        '{"question": "Q", "ground_truth": "A", "predicted_answer": "A"}',
        "category",
    ),
    "unknown_category_int": (GOOD.replace('"category": 4', '"category": 9'), "category"),
    "unknown_category_name": (GOOD.replace('"category": 4', '"category": "funny"'), "category"),
    "nan_latency": (GOOD[:-1] + ', "total_latency_s": NaN}', "total_latency_s"),
    "prediction_not_string": (
        GOOD.replace('"predicted_answer": "A"', '"predicted_answer": 5'),
        "predicted_answer",
    ),
    "prediction_null": (
        GOOD.replace('"predicted_answer": "A"', '"predicted_answer": null'),
        "predicted_answer",
    ),
    "question_list": (GOOD.replace('"question": "Q?"', '"question": ["Q"]'), "question"),
    "record_not_object": ('["just a string"]', "record"),
    "second_line_broken": (GOOD + "\n{broken", "line 2"),
    "negative_latency": (GOOD[:-1] + ', "search_latency_s": -1}', "search_latency_s"),
    "infinite_tokens": (GOOD[:-1] + ', "context_tokens": Infinity}', "context_tokens"),
}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "locoscore", *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_predictions_exit_2_with_one_line(name: str, tmp_path: Path) -> None:
    content, fragment = CASES[name]
    bad = tmp_path / f"{name}.jsonl"
    bad.write_text(content)
    out = tmp_path / "out"
    proc = _run("score", str(bad), "--out", str(out))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert str(bad.name) in lines[0] and fragment in lines[0]
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_missing_file_exits_2(tmp_path: Path) -> None:
    proc = _run("score", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2 and "nope.jsonl" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_unknown_protocol_exits_2(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(GOOD)
    proc = _run("score", str(good), "--protocols", "bleu4", "--out", str(tmp_path / "out"))
    assert proc.returncode == 2 and "--protocols" in proc.stderr


def test_malformed_dataset_exits_2(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(GOOD)
    ds = tmp_path / "locomo10.json"
    ds.write_text('{"not": "a list"}')
    proc = _run("score", str(good), "--dataset", str(ds), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2 and "locomo10.json" in proc.stderr
    assert not (tmp_path / "out").exists()
