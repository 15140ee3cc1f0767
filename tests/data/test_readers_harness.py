"""`mem0` and `zep` result files: field meanings, ordering, timings, recorded verdicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from locoscore.benchmarks.locomo.data.readers import read_predictions

FIXTURES = Path(__file__).parent / "fixtures"


def _mem0_item(tmp_path: Path, **fields: Any) -> Any:
    item = {"question": "Q?", "answer": "gold", "response": "pred", "category": "4", **fields}
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps({"0": [item]}))
    return read_predictions(path, "mem0").records[0]


def test_mem0_records_are_sorted_by_conversation_then_file_order() -> None:
    records = read_predictions(FIXTURES / "mem0_results.json").records
    assert [r.conversation for r in records] == [0, 0, 0, 0, 1, 1]
    assert [r.source for r in records] == ["0[0]", "0[1]", "0[2]", "0[3]", "1[0]", "1[1]"]
    assert [r.answer for r in records[2:4]] == ["a chess cup", "a spelling bee"]


def test_mem0_answer_is_gold_and_response_is_prediction() -> None:
    record = read_predictions(FIXTURES / "mem0_results.json").records[4]
    assert (record.answer, record.prediction) == ("blue", "It is blue.")


def test_mem0_string_and_int_categories() -> None:
    records = read_predictions(FIXTURES / "mem0_results.json").records
    assert [r.category for r in records] == [4, 2, 4, 4, 4, 1]


def test_mem0_search_time_plus_response_time_is_total(tmp_path: Path) -> None:
    record = _mem0_item(tmp_path, search_time=0.5, response_time=1.5)
    assert (record.search_latency_s, record.total_latency_s) == (0.5, 2.0)


def test_mem0_two_speaker_searches_add_up(tmp_path: Path) -> None:
    record = _mem0_item(
        tmp_path, speaker_1_memory_time=0.25, speaker_2_memory_time=0.5, response_time=1.0
    )
    assert (record.search_latency_s, record.total_latency_s) == (0.75, 1.75)


def test_mem0_search_memory_time_without_response_time_has_no_total(tmp_path: Path) -> None:
    record = _mem0_item(tmp_path, search_memory_time=0.375)
    assert (record.search_latency_s, record.total_latency_s) == (0.375, None)


def test_mem0_no_timing_fields_leaves_latency_empty(tmp_path: Path) -> None:
    record = _mem0_item(tmp_path)
    assert (record.search_latency_s, record.total_latency_s) == (None, None)


def test_mem0_recorded_scores_are_kept_as_given(tmp_path: Path) -> None:
    record = _mem0_item(tmp_path, f1_score=0.5, bleu_score=0.25, llm_score=1)
    assert record.recorded == {"f1_score": 0.5, "bleu_score": 0.25, "llm_score": 1}
    assert isinstance(record.recorded["llm_score"], int)


def test_zep_answer_is_the_response_and_golden_answer_the_gold() -> None:
    records = read_predictions(FIXTURES / "zep_grades.json").records
    assert [r.conversation for r in records] == [0, 0, 1]
    first = records[0]
    assert first.prediction == "Bo adopted the cat in 2021."
    assert first.answer == 2021 and isinstance(first.answer, int)
    assert first.source == "locomo_experiment_user_0[0]"


def test_zep_grade_is_recorded_as_a_bool() -> None:
    records = read_predictions(FIXTURES / "zep_grades.json").records
    assert [r.recorded for r in records] == [{"grade": True}, {"grade": False}, {"grade": True}]


def test_zep_users_are_ordered_numerically(tmp_path: Path) -> None:
    item = {"question": "Q?", "answer": "p", "golden_answer": "g", "category": 4}
    raw = {f"locomo_experiment_user_{i}": [item] for i in (10, 2, 0)}
    path = tmp_path / "zep.json"
    path.write_text(json.dumps(raw))
    assert [r.conversation for r in read_predictions(path).records] == [0, 2, 10]


@pytest.mark.parametrize("fixture", ["mem0_results.json", "zep_grades.json"])
def test_harness_files_have_no_ids_until_joined(fixture: str) -> None:
    records = read_predictions(FIXTURES / fixture).records
    assert all(r.sample_id is None and r.qa_index is None for r in records)
