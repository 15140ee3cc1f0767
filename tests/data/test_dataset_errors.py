"""A malformed locomo10.json: one error naming the file, the sample and QA index (or turn)
and the field; on the command line, exit 2, one line, nothing written."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from locoscore.benchmarks.locomo.data import load_dataset
from locoscore.errors import DatasetError

Raw = list[dict[str, Any]]


def _drop_question(raw: Raw) -> None:
    del raw[1]["qa"][5]["question"]


def _category_9(raw: Raw) -> None:
    raw[0]["qa"][0]["category"] = 9


def _turn_text_null(raw: Raw) -> None:
    raw[0]["conversation"]["session_1"][0]["text"] = None


def _qa_item_not_object(raw: Raw) -> None:
    raw[2]["qa"][3] = "oops"


def _session_not_list(raw: Raw) -> None:
    raw[0]["conversation"]["session_2"] = {}


def _speaker_missing(raw: Raw) -> None:
    del raw[3]["conversation"]["speaker_b"]


CASES: dict[str, tuple[Callable[[Raw], None], str, str | None]] = {
    # name: (change, record, field)
    "qa-missing-question": (_drop_question, "conv-30 qa[5]", "question"),
    "qa-unknown-category": (_category_9, "conv-26 qa[0]", "category"),
    "turn-text-null": (_turn_text_null, "conv-26 session_1[0]", "text"),
    "qa-item-not-object": (_qa_item_not_object, "conv-41 qa[3]", None),
    "session-not-list": (_session_not_list, "conv-26", "session_2"),
    "speaker-missing": (_speaker_missing, "conv-42", "speaker_b"),
}


@pytest.fixture(scope="module")
def real_raw(locomo_path: Path) -> Raw:
    data: Raw = json.loads(locomo_path.read_text())
    return data


def _write(tmp_path: Path, raw: Raw, name: str) -> Path:
    changed = copy.deepcopy(raw)
    CASES[name][0](changed)
    path = tmp_path / "locomo10.json"
    path.write_text(json.dumps(changed))
    return path


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_names_sample_item_and_field(tmp_path: Path, real_raw: Raw, name: str) -> None:
    path = _write(tmp_path, real_raw, name)
    with pytest.raises(DatasetError) as info:
        load_dataset(path)
    _, record, field = CASES[name]
    assert (info.value.file, info.value.record, info.value.field) == (str(path), record, field)
    assert "\n" not in str(info.value)


def test_command_line_gives_one_line_and_writes_nothing(tmp_path: Path, real_raw: Raw) -> None:
    dataset = _write(tmp_path, real_raw, "qa-missing-question")
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"question": "Q", "answer": "a", "response": "a", "category": 4}\n')
    out = tmp_path / "out"
    args = ["score", str(predictions), "--dataset", str(dataset), "--out", str(out)]
    proc = subprocess.run(
        [sys.executable, "-m", "locoscore", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"error: {dataset}, record conv-30 qa[5], field 'question': Field required"
    ]
    assert not out.exists()
