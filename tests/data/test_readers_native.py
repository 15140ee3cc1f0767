"""`native` (JSONL / JSON list) and `prototype` records: names, aliases, units, positions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from locoscore.benchmarks.locomo.data.readers import read_predictions

FIXTURES = Path(__file__).parent / "fixtures"


def _one(tmp_path: Path, **fields: Any) -> Any:
    record = {"question": "Q?", "ground_truth": "gold", "predicted_answer": "pred", "category": 4}
    record.update(fields)
    record = {k: v for k, v in record.items() if v is not None}
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps(record) + "\n")
    return read_predictions(path, "native").records[0]


def test_jsonl_fixture_reads_every_field() -> None:
    first, second, third = read_predictions(FIXTURES / "native.jsonl").records
    assert (first.sample_id, first.qa_index) == ("demo-1", 0)
    assert (first.question, first.answer, first.prediction) == (
        "Where did Ada go hiking?",
        "Mount Lark",
        "Mount Lark",
    )
    assert (first.search_latency_s, first.total_latency_s, first.context_tokens) == (0.2, 1.1, 300)
    assert second.answer == 2021  # an int gold is kept as given
    assert third.gold_field == "adversarial_answer"
    assert third.answer == "Yes"


def test_jsonl_sources_are_file_lines_counting_blank_lines() -> None:
    records = read_predictions(FIXTURES / "native.jsonl").records
    assert [r.source for r in records] == ["line 1", "line 3", "line 4"]


def test_json_list_sources_are_zero_based_positions() -> None:
    records = read_predictions(FIXTURES / "native_list.json").records
    assert [r.source for r in records] == ["record 0", "record 1"]


@pytest.mark.parametrize(
    ("gold_name", "prediction_name"),
    [
        ("ground_truth", "predicted_answer"),
        ("answer", "response"),
        ("answer", "prediction"),
    ],
)
def test_gold_and_prediction_aliases(tmp_path: Path, gold_name: str, prediction_name: str) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(
        json.dumps({"question": "Q?", gold_name: "G", prediction_name: "P", "category": 2})
    )
    record = read_predictions(path).records[0]
    assert (record.answer, record.prediction) == ("G", "P")


def test_canonical_names_win_over_aliases(tmp_path: Path) -> None:
    record = _one(tmp_path, answer="alias gold", response="alias prediction")
    assert (record.answer, record.prediction) == ("gold", "pred")


def test_millisecond_latencies_are_converted_to_seconds(tmp_path: Path) -> None:
    record = _one(tmp_path, search_latency_ms=250, total_latency_ms=1250)
    assert record.search_latency_s == pytest.approx(0.25)
    assert record.total_latency_s == pytest.approx(1.25)


@pytest.mark.parametrize(
    ("given", "category"),
    [
        (1, 1),
        ("3", 3),
        ("single-hop", 4),
        ("single_hop", 4),
        ("multi_hop", 1),
        ("Temporal", 2),
        ("open-domain", 3),
        ("adversarial", 5),
    ],
)
def test_category_as_id_digit_string_or_name(tmp_path: Path, given: object, category: int) -> None:
    extra = {"adversarial_answer": "x"} if category == 5 else {}
    assert _one(tmp_path, category=given, **extra).category == category


def test_absent_optional_fields_are_none(tmp_path: Path) -> None:
    record = _one(tmp_path)
    assert record.sample_id is None and record.qa_index is None and record.conversation is None
    assert record.search_latency_s is None and record.total_latency_s is None
    assert record.context_tokens is None and record.recorded == {}


def test_empty_prediction_is_a_valid_answer(tmp_path: Path) -> None:
    assert _one(tmp_path, predicted_answer="").prediction == ""


def test_integral_float_token_count_becomes_int(tmp_path: Path) -> None:
    tokens = _one(tmp_path, context_tokens=512.0).context_tokens
    assert tokens == 512 and isinstance(tokens, int)


def test_prototype_results_wrapper_and_millisecond_fields() -> None:
    result = read_predictions(FIXTURES / "prototype_results.json")
    first, second = result.records
    assert result.format == "prototype"
    assert (first.question, first.category, first.prediction) == (
        "Where did Ada go hiking?",
        4,
        "Mount Lark",
    )
    assert first.search_latency_s == pytest.approx(0.12)
    assert first.total_latency_s == pytest.approx(0.85)
    assert (first.context_tokens, second.context_tokens) == (412, 380)
    assert second.search_latency_s == pytest.approx(0.0955)
