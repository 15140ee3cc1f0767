"""`locomo` format: locomo10.json-shaped files with `<key>_prediction` on QA items."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from locoscore.benchmarks.locomo.data.join import join_to_dataset
from locoscore.benchmarks.locomo.data.readers import read_predictions
from locoscore.errors import InputError

FIXTURES = Path(__file__).parent / "fixtures"


def _with_keys(tmp_path: Path, *keys: str) -> Path:
    samples = json.loads((FIXTURES / "mini_dataset.json").read_text())
    for sample in samples:
        for qa in sample["qa"]:
            for key in keys:
                qa[f"{key}_prediction"] = f"{key} says hi"
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(samples))
    return path


def test_ids_come_from_the_file() -> None:
    records = read_predictions(FIXTURES / "locomo_predictions.json").records
    assert [(r.sample_id, r.qa_index, r.conversation) for r in records[7:9]] == [
        ("demo-1", 7, 0),
        ("demo-2", 0, 1),
    ]
    assert records[3].source == "demo-1[3]"
    assert len(records) == 11


def test_category_5_without_answer_uses_adversarial_answer() -> None:
    record = read_predictions(FIXTURES / "locomo_predictions.json").records[3]
    assert (record.category, record.answer, record.gold_field) == (5, "Yes", "adversarial_answer")


def test_category_5_with_both_fields_uses_answer() -> None:
    record = read_predictions(FIXTURES / "locomo_predictions.json").records[10]
    assert (record.answer, record.gold_field) == ("No", "answer")


def test_int_answers_are_kept_as_ints() -> None:
    records = read_predictions(FIXTURES / "locomo_predictions.json").records
    assert [(r.qa_index, r.answer) for r in records if isinstance(r.answer, int)] == [
        (1, 2021),
        (1, 3),
    ]


def test_the_single_key_is_picked_and_reported() -> None:
    result = read_predictions(FIXTURES / "locomo_predictions.json")
    assert result.prediction_key == "demo"
    assert result.records[0].prediction == "Mount Lark"


def test_recorded_official_f1_is_kept() -> None:
    records = read_predictions(FIXTURES / "locomo_predictions.json").records
    assert records[0].recorded == {"f1": 1.0}
    assert records[1].recorded == {}


def test_prediction_key_chooses_among_several(tmp_path: Path) -> None:
    path = _with_keys(tmp_path, "gpt", "rag_top_5")
    result = read_predictions(path, prediction_key="rag_top_5")
    assert result.prediction_key == "rag_top_5"
    assert {r.prediction for r in result.records} == {"rag_top_5 says hi"}


def test_several_keys_without_a_choice_lists_them(tmp_path: Path) -> None:
    path = _with_keys(tmp_path, "gpt", "rag_top_5")
    with pytest.raises(InputError) as info:
        read_predictions(path)
    assert info.value.field == "--prediction-key"
    assert "gpt, rag_top_5" in info.value.reason


def test_unknown_prediction_key_lists_the_available_ones(tmp_path: Path) -> None:
    path = _with_keys(tmp_path, "gpt")
    with pytest.raises(InputError) as info:
        read_predictions(path, prediction_key="claude")
    assert info.value.field == "--prediction-key"
    assert "the file has: gpt" in info.value.reason


def _real_with_gold_predictions(locomo_path: Path, tmp_path: Path) -> Path:
    samples: list[dict[str, Any]] = json.loads(locomo_path.read_text())
    for sample in samples:
        for qa in sample["qa"]:
            gold = qa["answer"] if "answer" in qa else qa["adversarial_answer"]
            qa["x_prediction"] = str(gold)
    path = tmp_path / "locomo_x.json"
    path.write_text(json.dumps(samples))
    return path


def test_real_dataset_with_predictions_reads_every_question(
    locomo_path: Path, dataset: Any, tmp_path: Path
) -> None:
    result = read_predictions(_real_with_gold_predictions(locomo_path, tmp_path))
    records = result.records
    assert (result.format, result.prediction_key, len(records)) == ("locomo", "x", 1986)
    # 446 category-5 items, 2 of which also carry `answer` (which then is the gold).
    assert sum(r.gold_field == "adversarial_answer" for r in records) == 444
    assert sum(r.category == 5 for r in records) == 446
    int_golds = [r for r in records if isinstance(r.answer, int)]
    assert sorted(r.answer for r in int_golds) == [2, 3, 2022, 2022, 2022, 2022]
    assert {r.sample_id for r in int_golds} == {"conv-26"}
    for record in records:
        qa = dataset.items[(record.sample_id, record.qa_index)]
        assert (record.answer, record.gold_field, record.category) == (
            qa.gold,
            qa.gold_field,
            qa.category,
        )
        assert record.prediction == qa.gold_text


def test_real_locomo_file_joins_cleanly(locomo_path: Path, dataset: Any, tmp_path: Path) -> None:
    records = read_predictions(_real_with_gold_predictions(locomo_path, tmp_path)).records
    joined, report = join_to_dataset(records, dataset, strict=True)
    assert report.matched == len(joined) == 1986
    assert report.problem_count == 0
