"""Bad input: one InputError naming the file, the record (or line) and the field."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from locoscore.benchmarks.locomo.data.readers import read_predictions
from locoscore.errors import InputError

GOOD = {"question": "Q?", "ground_truth": "gold", "predicted_answer": "pred", "category": 4}


def _jsonl(*records: dict[str, Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def _bad(**changes: Any) -> dict[str, Any]:
    """GOOD with fields changed; a value of ... removes the field."""
    record = {**GOOD, **changes}
    return {k: v for k, v in record.items() if v is not ...}


def _locomo(**qa_fields: Any) -> str:
    qa = {"question": "Q?", "answer": "A", "category": 4, **qa_fields}
    return json.dumps([{"sample_id": "s-1", "qa": [qa]}])


@dataclass
class Case:
    content: str | bytes
    record: str | int | None
    field: str | None
    fmt: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    name: str = "p.json"


CASES = {
    "not-json": Case("this is not json", "line 1", None),
    "bad-second-jsonl-line": Case(_jsonl(GOOD) + "{oops\n", "line 2", None),
    # a trailing comma is placed at the comma (line 2) on every Python, as 3.13 reports it
    "pretty-json-syntax-error": Case('[\n  {"question": "Q?",\n  }\n]\n', "line 2", None),
    "pretty-json-trailing-comma-in-list": Case('[\n  {"question": "Q?"},\n\n]\n', "line 2", None),
    "not-utf8": Case(b"\xff\xfe\x00garbage", None, None),
    "empty-file": Case("  \n", None, None),
    "empty-list": Case("[]", None, None),
    "top-level-number": Case("42", None, None),
    "unknown-format": Case(_jsonl(GOOD), None, "--format", fmt="csv"),
    "list-entry-not-object": Case(json.dumps([GOOD, "oops"]), 1, None, fmt="native"),
    "missing-question": Case(_jsonl(GOOD, _bad(question=...)), "line 2", "question"),
    "missing-prediction": Case(_jsonl(_bad(predicted_answer=...)), "line 1", "predicted_answer"),
    "missing-gold": Case(_jsonl(_bad(ground_truth=...)), "line 1", "ground_truth"),
    "null-gold": Case(_jsonl(_bad(ground_truth=None)), "line 1", "ground_truth"),
    "float-gold": Case(_jsonl(_bad(ground_truth=2.5)), "line 1", "ground_truth"),
    "missing-category": Case(_jsonl(_bad(category=...)), "line 1", "category"),
    "unknown-category-name": Case(_jsonl(_bad(category="trivia")), "line 1", "category"),
    "category-out-of-range": Case(_jsonl(_bad(category=7)), "line 1", "category"),
    "nan-latency": Case(
        '{"question": "Q?", "ground_truth": "g", "predicted_answer": "p", "category": 4,'
        ' "search_latency_s": NaN}\n',
        "line 1",
        "search_latency_s",
    ),
    "infinite-latency-ms": Case(
        '[{"question": "Q?", "ground_truth": "g", "predicted_answer": "p", "category": 4,'
        ' "total_latency_ms": Infinity}]',
        0,
        "total_latency_ms",
    ),
    "negative-latency": Case(_jsonl(_bad(search_latency_s=-0.5)), "line 1", "search_latency_s"),
    "both-latency-units": Case(
        _jsonl(_bad(total_latency_s=1.0, total_latency_ms=1000)), "line 1", "total_latency_ms"
    ),
    "string-latency": Case(_jsonl(_bad(search_latency_s="fast")), "line 1", "search_latency_s"),
    "fractional-tokens": Case(_jsonl(_bad(context_tokens=10.5)), "line 1", "context_tokens"),
    "non-string-prediction": Case(
        _jsonl(_bad(predicted_answer=..., response=42)), "line 1", "response"
    ),
    "null-question": Case(_jsonl(_bad(question=None)), "line 1", "question"),
    "empty-question": Case(_jsonl(_bad(question="  ")), "line 1", "question"),
    "bad-qa-index": Case(_jsonl(_bad(qa_index=-1)), "line 1", "qa_index"),
    "prototype-results-not-list": Case(json.dumps({"results": {}}), None, "results", "prototype"),
    "mem0-non-digit-key": Case(json.dumps({"0": [], "conv": []}), "conv", None, fmt="mem0"),
    "mem0-items-not-list": Case(json.dumps({"0": {"question": "Q?"}}), "0", None),
    "mem0-nan-recorded-score": Case(
        '{"0": [{"question": "Q?", "answer": "a", "response": "b", "category": "1",'
        ' "f1_score": NaN}]}',
        "0[0]",
        "f1_score",
    ),
    "mem0-missing-response": Case(
        json.dumps({"3": [{"question": "Q?", "answer": "a", "category": 1}]}), "3[0]", "response"
    ),
    "zep-grade-not-bool": Case(
        json.dumps(
            {
                "locomo_experiment_user_0": [
                    {
                        "question": "Q?",
                        "answer": "p",
                        "golden_answer": "g",
                        "grade": "yes",
                        "category": 4,
                    }
                ]
            }
        ),
        "locomo_experiment_user_0[0]",
        "grade",
    ),
    "zep-missing-golden-answer": Case(
        json.dumps(
            {"locomo_experiment_user_2": [{"question": "Q?", "answer": "p", "category": 2}]}
        ),
        "locomo_experiment_user_2[0]",
        "golden_answer",
    ),
    "locomo-missing-answer": Case(_locomo(answer=None, x_prediction="p"), "s-1[0]", "answer"),
    "locomo-prediction-not-string": Case(_locomo(x_prediction=["p"]), "s-1[0]", "x_prediction"),
    "locomo-no-prediction-keys": Case(_locomo(), None, None),
    "locomo-bad-prediction-key": Case(
        _locomo(x_prediction="p"), None, "--prediction-key", options={"prediction_key": "y"}
    ),
    "prediction-key-on-other-format": Case(
        _jsonl(GOOD), None, "--prediction-key", options={"prediction_key": "x"}
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_bad_input_names_file_record_and_field(tmp_path: Path, case: Case) -> None:
    path = tmp_path / case.name
    if isinstance(case.content, bytes):
        path.write_bytes(case.content)
    else:
        path.write_text(case.content)
    with pytest.raises(InputError) as info:
        read_predictions(path, case.fmt, **case.options)
    error = info.value
    assert (error.file, error.record, error.field) == (str(path), case.record, case.field)
    message = str(error)
    assert "\n" not in message
    assert message.startswith(str(path))
    if case.field is not None:
        assert f"field '{case.field}'" in message


def test_jsonl_errors_read_as_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(_jsonl(GOOD, _bad(category="trivia")))
    with pytest.raises(InputError) as info:
        read_predictions(path)
    assert str(info.value).startswith(f"{path}, line 2, field 'category': unknown category")


def test_missing_field_names_its_aliases(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(_jsonl(_bad(predicted_answer=...)))
    with pytest.raises(InputError) as info:
        read_predictions(path)
    assert info.value.reason == "missing (also accepted: response, prediction)"


def test_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        read_predictions(tmp_path / "absent.jsonl")
    assert info.value.file == str(tmp_path / "absent.jsonl")
    assert info.value.reason == "file not found"
