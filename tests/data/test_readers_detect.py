"""Auto-detection picks each format from the file's shape; `fmt` overrides it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from locoscore.benchmarks.locomo.data.readers import FORMATS, detect_format, read_predictions
from locoscore.errors import InputError

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("native.jsonl", "native"),
        ("native_list.json", "native"),
        ("locomo_predictions.json", "locomo"),
        ("mem0_results.json", "mem0"),
        ("zep_grades.json", "zep"),
        ("prototype_results.json", "prototype"),
    ],
)
def test_each_fixture_is_detected_as_its_format(fixture: str, expected: str) -> None:
    result = read_predictions(FIXTURES / fixture)
    assert result.format == expected
    assert result.records, "every fixture holds records"


def test_formats_lists_the_six_readers() -> None:
    assert FORMATS == ("native", "locomo", "mem0", "zep", "memos", "prototype")


def test_a_detailed_results_object_is_read_as_memos(tmp_path: Path) -> None:
    path = tmp_path / "eval_results.json"
    item = {"question_id": "locomo_0_qa1", "question": "Q?", "golden_answer": "a",
            "generated_answer": "b", "category": "4"}  # fmt: skip
    path.write_text(json.dumps({"accuracy": 0.5, "detailed_results": {"u": [item]}}))
    result = read_predictions(path)
    assert result.format == "memos"
    assert (result.records[0].conversation, result.records[0].qa_index) == (0, 1)


def test_a_single_jsonl_line_is_read_as_native(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_text(
        json.dumps({"question": "Q?", "ground_truth": "a", "predicted_answer": "a", "category": 4})
        + "\n"
    )
    result = read_predictions(path)
    assert result.format == "native"
    assert [r.source for r in result.records] == ["line 1"]


def test_read_result_carries_the_file_sha256(tmp_path: Path) -> None:
    import hashlib

    path = FIXTURES / "zep_grades.json"
    assert read_predictions(path).sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_prototype_records_in_a_plain_list_are_read_when_forced() -> None:
    # A bare list is detected as native; --format prototype reads the same records.
    forced = read_predictions(FIXTURES / "native_list.json", "prototype")
    detected = read_predictions(FIXTURES / "native_list.json")
    assert forced.format == "prototype"
    assert [r.model_dump() for r in forced.records] == [r.model_dump() for r in detected.records]


@pytest.mark.parametrize(
    "raw",
    [
        {"alpha": [], "beta": []},
        {"0": [], "locomo_experiment_user_1": []},
        [1, 2, 3],
        "just a string",
    ],
    ids=["unknown-keys", "mixed-keys", "list-of-numbers", "string"],
)
def test_unclear_shapes_raise_and_suggest_format(raw: object) -> None:
    with pytest.raises(InputError) as info:
        detect_format(Path("x.json"), raw)
    assert info.value.file == "x.json"
    assert "--format" in str(info.value)


def test_forcing_the_wrong_format_names_the_expected_shape() -> None:
    with pytest.raises(InputError) as info:
        read_predictions(FIXTURES / "mem0_results.json", "zep")
    assert info.value.record == "1"
    assert "locomo_experiment_user_" in info.value.reason
