"""Joining predictions to dataset questions: by id, by conversation + text, by text alone.

The invented mini dataset (fixtures/mini_dataset.json): demo-1 asks "What did Bo win?" twice
(golds "a chess cup", "a spelling bee"), and "What colour is the front door?" is asked in
both conversations (demo-1: "red", demo-2: "blue").
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from locoscore.benchmarks.locomo.data import Dataset, PredictionRecord, load_dataset
from locoscore.benchmarks.locomo.data.join import JoinReport, join_to_dataset
from locoscore.benchmarks.locomo.data.readers import read_predictions
from locoscore.errors import InputError

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def mini() -> Dataset:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # not the released file: a checksum warning
        return load_dataset(FIXTURES / "mini_dataset.json")


def _record(question: str, answer: str | int, category: int = 4, **ids: Any) -> PredictionRecord:
    return PredictionRecord(
        question=question, answer=answer, category=category, prediction="p", source="t", **ids
    )


def _ids(records: list[PredictionRecord]) -> list[tuple[str | None, int | None]]:
    return [(r.sample_id, r.qa_index) for r in records]


def test_by_id(mini: Dataset) -> None:
    joined, report = join_to_dataset(
        [_record("What did Bo win?", "a spelling bee", sample_id="demo-1", qa_index=6)], mini
    )
    assert _ids(joined) == [("demo-1", 6)]
    assert joined[0].conversation == 0
    assert (report.matched, report.problem_count) == (1, 0)


def test_by_conversation_and_text_fills_ids(mini: Dataset) -> None:
    joined, _ = join_to_dataset(
        [_record("What colour is the front door?", "blue", conversation=1)], mini
    )
    assert _ids(joined) == [("demo-2", 0)]


def test_sample_id_without_index_gives_the_conversation(mini: Dataset) -> None:
    joined, _ = join_to_dataset(
        [_record("What colour is the front door?", "red", sample_id="demo-1")], mini
    )
    assert _ids(joined) == [("demo-1", 7)]


def test_repeated_text_in_a_conversation_matches_in_file_order(mini: Dataset) -> None:
    # Golds swapped on purpose: order decides, and both golds are then reported as different.
    records = [
        _record("What did Bo win?", "a spelling bee", conversation=0),
        _record("What did Bo win?", "a chess cup", conversation=0),
    ]
    joined, report = join_to_dataset(records, mini)
    assert _ids(joined) == [("demo-1", 5), ("demo-1", 6)]
    assert [m["key"] for m in report.gold_mismatches] == ["demo-1#5", "demo-1#6"]


def test_text_alone_matches_a_question_unique_in_the_dataset(mini: Dataset) -> None:
    joined, report = join_to_dataset([_record("Where did Ada go hiking?", "Mount Lark")], mini)
    assert _ids(joined) == [("demo-1", 0)]
    assert report.matched == 1


def test_text_alone_asked_in_two_conversations_is_settled_by_gold(mini: Dataset) -> None:
    joined, _ = join_to_dataset([_record("What colour is the front door?", "blue")], mini)
    assert _ids(joined) == [("demo-2", 0)]


def test_text_alone_ambiguous_without_agreeing_gold_is_unmatched(mini: Dataset) -> None:
    record = _record("What colour is the front door?", "green")
    joined, report = join_to_dataset([record], mini)
    assert _ids(joined) == [(None, None)]
    assert report.matched == 0
    assert len(report.unmatched) == 1 and "asked 2 times" in report.unmatched[0]


def test_unmatched_records_stay_in_the_output(mini: Dataset) -> None:
    records = [
        _record("Where did Ada go hiking?", "Mount Lark"),
        _record("Who is the mayor?", "nobody"),
        _record("Where did Ada go hiking?", "Mount Lark", conversation=1),
        _record("Q?", "a", conversation=9),
        _record("Q?", "a", sample_id="conv-99"),
        _record("Q?", "a", sample_id="demo-1", qa_index=40),
    ]
    joined, report = join_to_dataset(records, mini)
    assert [r.question for r in joined] == [r.question for r in records]
    assert report.matched == 1
    assert [u.split(" (", 1)[1] for u in report.unmatched] == [
        "question not in the dataset)",
        "question not in conversation 1)",
        "no conversation 9 (dataset has 2))",
        "no sample 'conv-99' in the dataset)",
        "no question demo-1#40 in the dataset)",
    ]


def test_duplicates_are_reported_and_scored_once(mini: Dataset) -> None:
    records = [
        _record("Where did Ada go hiking?", "Mount Lark", conversation=0),
        _record("Where did Ada go hiking?", "Mount Lark", conversation=0),
        _record("Where did Ada go hiking?", "Mount Lark", sample_id="demo-1", qa_index=0),
        _record("What did Bo win?", "a chess cup", conversation=0),
        _record("What did Bo win?", "a spelling bee", conversation=0),
        _record("What did Bo win?", "a third prize", conversation=0),
    ]
    joined, report = join_to_dataset(records, mini)
    assert _ids(joined) == [("demo-1", 0), ("demo-1", 5), ("demo-1", 6)]
    assert len(report.duplicates) == 3
    assert report.matched == 3


def test_int_gold_equals_its_string_form(mini: Dataset) -> None:
    records = [
        _record("When did Bo adopt a cat?", "2021", category=2),
        _record("How many siblings does Di have?", 3, category=1),
    ]
    _, report = join_to_dataset(records, mini)
    assert report.gold_mismatches == []


def test_gold_mismatch_names_key_question_given_and_dataset(mini: Dataset) -> None:
    _, report = join_to_dataset([_record("When did Bo adopt a cat?", "2020", category=2)], mini)
    assert report.gold_mismatches == [
        {
            "key": "demo-1#1",
            "question": "When did Bo adopt a cat?",
            "given": "2020",
            "dataset": 2021,
        }
    ]


def test_category_and_question_mismatches_are_reported(mini: Dataset) -> None:
    records = [
        _record("Where did Ada go hiking?", "Mount Lark", category=1),
        _record("Where did Ada hike?", "a chess cup", sample_id="demo-1", qa_index=5),
    ]
    _, report = join_to_dataset(records, mini)
    assert [(m["given"], m["dataset"]) for m in report.category_mismatches] == [(1, 4)]
    assert [(m["given"], m["dataset"]) for m in report.question_mismatches] == [
        ("Where did Ada hike?", "What did Bo win?")
    ]


def test_adversarial_gold_field_comes_from_the_dataset(mini: Dataset) -> None:
    joined, report = join_to_dataset(
        [_record("Did Ada sell her bicycle?", "Yes", category=5)], mini
    )
    assert joined[0].gold_field == "adversarial_answer"
    assert report.problem_count == 0


def test_input_records_are_not_changed(mini: Dataset) -> None:
    record = _record("Where did Ada go hiking?", "Mount Lark")
    join_to_dataset([record], mini)
    assert (record.sample_id, record.qa_index, record.conversation) == (None, None, None)


def test_report_dict_has_counts_and_first_five_examples(mini: Dataset) -> None:
    records = [_record(f"Unknown question {i}?", "x") for i in range(7)]
    report = join_to_dataset(records, mini)[1].to_dict()
    assert report["matched"] == 0
    assert report["unmatched"]["count"] == 7
    assert report["unmatched"]["examples"] == [
        f"t: 'Unknown question {i}?' (question not in the dataset)" for i in range(5)
    ]
    assert report["duplicates"] == {"count": 0, "examples": []}
    assert set(report) == {
        "matched",
        "unmatched",
        "duplicates",
        "gold_mismatches",
        "category_mismatches",
        "question_mismatches",
    }


def test_report_can_be_built_from_the_four_core_fields() -> None:
    report = JoinReport(3, ["a"], [], [])
    assert (report.problem_count, report.to_dict()["unmatched"]["count"]) == (1, 1)


@pytest.mark.parametrize(
    ("record", "field"),
    [
        (_record("Who is the mayor?", "nobody"), "question"),
        (_record("When did Bo adopt a cat?", "2020", category=2), "answer"),
        (_record("When did Bo adopt a cat?", 2021, category=4), "category"),
    ],
    ids=["unmatched", "gold", "category"],
)
def test_strict_raises_naming_file_record_and_field(
    mini: Dataset, record: PredictionRecord, field: str
) -> None:
    record = record.model_copy(update={"source": "line 4"})
    with pytest.raises(InputError) as info:
        join_to_dataset([record], mini, strict=True, file="preds.jsonl")
    assert (info.value.file, info.value.record, info.value.field) == (
        "preds.jsonl",
        "line 4",
        field,
    )


def test_strict_counts_every_kind_of_problem(mini: Dataset) -> None:
    records = [
        _record("Where did Ada go hiking?", "Mount Lark", conversation=0),
        _record("Where did Ada go hiking?", "Mount Lark", conversation=0),
        _record("Who is the mayor?", "nobody"),
    ]
    with pytest.raises(InputError) as info:
        join_to_dataset(records, mini, strict=True)
    assert "1 unmatched, 1 duplicates" in info.value.reason
    assert info.value.record == "t"


def test_fixture_files_join_the_mini_dataset(mini: Dataset) -> None:
    names = (
        "mem0_results.json",
        "zep_grades.json",
        "locomo_predictions.json",
        "native.jsonl",
        "native_list.json",
        "prototype_results.json",
    )
    for name in names:
        records = read_predictions(FIXTURES / name).records
        joined, report = join_to_dataset(records, mini, strict=True)
        assert report.matched == len(records) == len(joined)


# Acceptance on the real files (skipped when ../shared is absent).


def _assert_covers_non_adversarial(joined: list[PredictionRecord], dataset: Any) -> None:
    expected = {key for key, qa in dataset.items.items() if qa.category != 5}
    assert len(expected) == 1540
    assert {(r.sample_id, r.qa_index) for r in joined} == expected
    for record in joined:
        qa = dataset.items[(record.sample_id, record.qa_index)]
        assert (record.category, record.question) == (qa.category, qa.question)
        assert record.conversation == dataset.sample_ids.index(qa.sample_id)


def test_real_memobase_mem0_file_joins_all_1540(
    peers_dir: Path, dataset: Any, memobase_items: list[dict[str, Any]]
) -> None:
    result = read_predictions(peers_dir / "memobase_eval_0710_3000.json")
    assert result.format == "mem0"
    joined, report = join_to_dataset(result.records, dataset, strict=True)
    assert (report.matched, len(report.unmatched), len(report.gold_mismatches)) == (1540, 0, 0)
    assert report.problem_count == 0
    _assert_covers_non_adversarial(joined, dataset)
    assert [r.recorded for r in joined] == [
        {name: item[name] for name in ("f1_score", "bleu_score", "llm_score")}
        for item in memobase_items
    ]


def test_real_zep_file_joins_all_1540_with_its_int_golds(peers_dir: Path, dataset: Any) -> None:
    result = read_predictions(peers_dir / "zep_locomo_grades.json")
    assert result.format == "zep"
    joined, report = join_to_dataset(result.records, dataset, strict=True)
    assert (report.matched, len(report.unmatched), report.problem_count) == (1540, 0, 0)
    _assert_covers_non_adversarial(joined, dataset)
    int_golds = [r for r in joined if isinstance(r.answer, int)]
    assert len(int_golds) == 6
    assert all(dataset.items[(r.sample_id, r.qa_index)].gold == r.answer for r in int_golds)
    assert sum(r.recorded["grade"] for r in joined) == 1157
