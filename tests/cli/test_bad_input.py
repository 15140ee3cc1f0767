"""Bad input: one line naming file, record and field; exit 2; no traceback; nothing written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

GOOD = '{"question": "Q?", "ground_truth": "A", "predicted_answer": "A", "category": 4}'

CASES: dict[str, tuple[str, str]] = {
    # name: (file content, what must follow "preds.jsonl" in the error line: where, then why).
    # The file has the same neutral name in every case, so a field named only in the file
    # name cannot satisfy the check.
    "not_json": ("{not json", ", line 1: not valid JSON"),
    "empty_file": ("", ": file is empty"),
    "top_level_number": ("42", ": the top level is not a list or an object"),
    "missing_question": (
        '{"ground_truth": "A", "predicted_answer": "A", "category": 4}',
        ", line 1, field 'question': missing",
    ),
    "missing_prediction": (
        '{"question": "Q", "ground_truth": "A", "category": 4}',
        ", line 1, field 'predicted_answer': missing",
    ),
    "missing_gold": (
        '{"question": "Q", "predicted_answer": "A", "category": 4}',
        ", line 1, field 'ground_truth': missing",
    ),
    "missing_category": (
        '{"question": "Q", "ground_truth": "A", "predicted_answer": "A"}',
        ", line 1, field 'category': missing",
    ),
    "unknown_category_int": (
        GOOD.replace('"category": 4', '"category": 9'),
        ", line 1, field 'category': unknown category 9",
    ),
    "unknown_category_name": (
        GOOD.replace('"category": 4', '"category": "funny"'),
        ", line 1, field 'category': unknown category 'funny'",
    ),
    "nan_latency": (
        GOOD[:-1] + ', "total_latency_s": NaN}',
        ", line 1, field 'total_latency_s': must be a finite number",
    ),
    "nan_prediction": (
        GOOD.replace('"predicted_answer": "A"', '"predicted_answer": NaN'),
        ", line 1, field 'predicted_answer': must be a string",
    ),
    "prediction_not_string": (
        GOOD.replace('"predicted_answer": "A"', '"predicted_answer": 5'),
        ", line 1, field 'predicted_answer': must be a string",
    ),
    "prediction_null": (
        GOOD.replace('"predicted_answer": "A"', '"predicted_answer": null'),
        ", line 1, field 'predicted_answer': must be a string",
    ),
    "question_list": (
        GOOD.replace('"question": "Q?"', '"question": ["Q"]'),
        ", line 1, field 'question': must be a string",
    ),
    "record_not_object": ('["just a string"]', ", record 0: expected a JSON object"),
    "second_line_broken": (GOOD + "\n{broken", ", line 2: not valid JSON"),
    "negative_latency": (
        GOOD[:-1] + ', "search_latency_s": -1}',
        ", line 1, field 'search_latency_s': latency must not be negative",
    ),
    "infinite_tokens": (
        GOOD[:-1] + ', "context_tokens": Infinity}',
        ", line 1, field 'context_tokens': must be a finite number",
    ),
    # JSON allows "\ud800"; such a string cannot be written as UTF-8 into the outputs.
    "unpaired_surrogate": (
        GOOD.replace('"predicted_answer": "A"', '"predicted_answer": "x\\ud800"'),
        ", line 1, field 'predicted_answer': contains an unpaired surrogate",
    ),
    "nested_too_deeply": ("[" * 100_000 + "]" * 100_000, ": JSON nested too deeply"),
    # Rich markup must not swallow bracketed text of the message ("[items]").
    "mem0_shape_forced_on_a_list": ('[{"question": "Q"}]', ": mem0 format expects"),
}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "locoscore", *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_predictions_exit_2_with_one_line(name: str, tmp_path: Path) -> None:
    content, where_and_why = CASES[name]
    bad = tmp_path / "preds.jsonl"
    bad.write_text(content)
    out = tmp_path / "out"
    extra = ["--format", "mem0"] if name == "mem0_shape_forced_on_a_list" else []
    proc = _run("score", str(bad), "--out", str(out), *extra)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"error: {bad}{where_and_why}"), lines[0]
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_bracketed_text_in_an_error_is_printed_verbatim(tmp_path: Path) -> None:
    bad = tmp_path / "preds.jsonl"
    bad.write_text('[{"question": "Q"}]')
    proc = _run("score", str(bad), "--format", "mem0", "--out", str(tmp_path / "out"))
    assert '{"<conversation index>": [items]}' in proc.stderr


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
