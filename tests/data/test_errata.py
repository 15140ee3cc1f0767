"""The gold errata list: every entry maps onto the dataset, and a list that does not fit is
refused with one line naming the file, the entry and the field."""

from __future__ import annotations

import json
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from locoscore.benchmarks.locomo.data.dataset import Dataset
from locoscore.benchmarks.locomo.data.errata import (
    ERRATA_SHA256,
    ErrataChecksumWarning,
    cached_errata_path,
    errata_for,
    load_errata,
)
from locoscore.errors import InputError


@pytest.fixture(scope="module")
def raw_errata(errata_path: Path) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads(errata_path.read_text(encoding="utf-8"))
    return entries


def _write(tmp_path: Path, entries: Any) -> Path:
    path = tmp_path / "errors.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


def _refusal(path: Path, dataset: Dataset) -> str:
    with pytest.raises(InputError) as info, warnings.catch_warnings():
        warnings.simplefilter("error")  # refused before any checksum warning: one line only
        load_errata(path, dataset)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_all_156_entries_map_onto_the_dataset(errata_path: Path, dataset: Dataset) -> None:
    errata = load_errata(errata_path, dataset)
    assert errata.sha256 == ERRATA_SHA256 and errata.checksum_ok
    assert len(errata.entries) == 156
    assert len({e.key for e in errata.entries}) == 156
    for e in errata.entries:
        assert (e.sample_id, e.qa_index) in dataset.items
        assert dataset.items[(e.sample_id, e.qa_index)].category == e.category


def test_question_ids_index_the_full_qa_list_of_the_nth_sample(
    errata_path: Path, dataset: Dataset
) -> None:
    by_id = {e.question_id: e for e in load_errata(errata_path, dataset).entries}
    # locomo_0_qa1 is conv-26 qa[1] ("When did Melanie paint a sunrise?", WRONG_CITATION)
    first = by_id["locomo_0_qa1"]
    assert (first.sample_id, first.qa_index, first.error_type) == ("conv-26", 1, "WRONG_CITATION")
    assert not first.score_changing
    samples = {e.question_id.split("_qa")[0]: e.sample_id for e in by_id.values()}
    assert samples["locomo_0"] == "conv-26" and samples["locomo_9"] == "conv-50"


def test_99_entries_change_the_answer_28_26_9_36_by_category(
    errata_path: Path, dataset: Dataset
) -> None:
    errata = load_errata(errata_path, dataset)
    types = Counter(e.error_type for e in errata.entries)
    assert types == {
        "WRONG_CITATION": 57,
        "HALLUCINATION": 33,
        "TEMPORAL_ERROR": 26,
        "ATTRIBUTION_ERROR": 24,
        "AMBIGUOUS": 13,
        "INCOMPLETE": 3,
    }
    changing = Counter(e.category for e in errata.entries if e.score_changing)
    assert changing == {1: 28, 2: 26, 3: 9, 4: 36}
    section = errata.summary_section()
    assert (section["entries"], section["score_changing"]) == (156, 99)
    assert section["flagged"]["conv-26#1"] == "WRONG_CITATION"


def test_a_list_that_is_not_json_is_refused(tmp_path: Path, dataset: Dataset) -> None:
    path = tmp_path / "errors.json"
    path.write_text("[{not json", encoding="utf-8")
    assert _refusal(path, dataset).startswith(f"{path}: not valid JSON")


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        ({"question_id": "locomo_0_qa1"}, ": expected a JSON list of errata entries"),
        (["locomo_0_qa1"], ", record 0: expected an object"),
        ([{"question": "x"}], ", record 0, field 'question_id': missing"),
        ([{"question_id": 7}], ", record 0, field 'question_id': expected a string, got 7"),
    ],
    ids=["object", "entry-not-object", "no-id", "id-not-string"],
)
def test_a_list_of_the_wrong_shape_is_refused(
    tmp_path: Path, dataset: Dataset, entries: Any, expected: str
) -> None:
    path = _write(tmp_path, entries)
    assert _refusal(path, dataset) == f"{path}{expected}"


@pytest.mark.parametrize(
    ("question_id", "expected"),
    [
        ("conv-26_qa1", "'conv-26_qa1' is not locomo_<sample>_qa<index>"),
        ("locomo_10_qa0", "locomo_10_qa0 names no question of the dataset (10 samples)"),
        ("locomo_0_qa199", "locomo_0_qa199 names no question of the dataset (10 samples)"),
    ],
)
def test_ids_that_do_not_map_are_refused(
    tmp_path: Path,
    dataset: Dataset,
    raw_errata: list[dict[str, Any]],
    question_id: str,
    expected: str,
) -> None:
    entries = [dict(e) for e in raw_errata[:3]]
    entries[2]["question_id"] = question_id
    path = _write(tmp_path, entries)
    assert _refusal(path, dataset) == f"{path}, record 2, field 'question_id': {expected}"


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        (
            "question",
            "When did Melanie paint a sunset?",
            "locomo_0_qa1 = conv-26 qa[1] asks 'When did Melanie paint a sunrise?' in the "
            "dataset, not 'When did Melanie paint a sunset?'",
        ),
        (
            "golden_answer",
            "2021",
            "locomo_0_qa1 = conv-26 qa[1] has gold '2022' in the dataset, not '2021'",
        ),
        ("category", 3, "locomo_0_qa1 = conv-26 qa[1] is category 2 in the dataset, not 3"),
        (
            "error_type",
            "TYPO",
            "unknown error type 'TYPO' (known: HALLUCINATION, TEMPORAL_ERROR, "
            "ATTRIBUTION_ERROR, AMBIGUOUS, INCOMPLETE, WRONG_CITATION)",
        ),
    ],
)
def test_an_entry_that_disagrees_with_the_dataset_is_refused(
    tmp_path: Path,
    dataset: Dataset,
    raw_errata: list[dict[str, Any]],
    field: str,
    value: Any,
    expected: str,
) -> None:
    entries = [dict(e) for e in raw_errata[:2]]
    assert entries[0]["question_id"] == "locomo_0_qa1"
    entries[0][field] = value
    path = _write(tmp_path, entries)
    assert _refusal(path, dataset) == f"{path}, record 0, field '{field}': {expected}"


def test_a_question_listed_twice_is_refused(
    tmp_path: Path, dataset: Dataset, raw_errata: list[dict[str, Any]]
) -> None:
    path = _write(tmp_path, [raw_errata[0], raw_errata[1], raw_errata[0]])
    assert _refusal(path, dataset) == (
        f"{path}, record 2, field 'question_id': locomo_0_qa1 is listed twice (also entry 0)"
    )


def test_a_list_other_than_the_pinned_one_loads_with_a_warning_naming_both_hashes(
    tmp_path: Path, dataset: Dataset, raw_errata: list[dict[str, Any]]
) -> None:
    path = _write(tmp_path, raw_errata[:10])
    with pytest.warns(ErrataChecksumWarning) as caught:
        errata = load_errata(path, dataset)
    assert len(errata.entries) == 10 and not errata.checksum_ok
    message = str(caught[0].message)
    assert errata.sha256 in message and ERRATA_SHA256 in message


def test_the_cached_copy_is_used_and_the_environment_variable_overrides_it(
    tmp_path: Path,
    dataset: Dataset,
    errata_path: Path,
    raw_errata: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert errata_for(None, dataset) is None  # nothing given, nothing cached
    cached = cached_errata_path()
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(errata_path.read_bytes())
    try:
        from_cache = errata_for(None, dataset)
        assert from_cache is not None and from_cache.path == cached
        monkeypatch.setenv("LOCOSCORE_ERRATA", str(_write(tmp_path, raw_errata[:4])))
        with pytest.warns(ErrataChecksumWarning):
            from_env = errata_for(None, dataset)
        assert from_env is not None and len(from_env.entries) == 4
    finally:
        cached.unlink()


def test_an_explicit_list_without_a_dataset_is_an_error(errata_path: Path) -> None:
    with pytest.raises(InputError, match="needs the dataset to map its question ids"):
        errata_for(errata_path, None)


def test_the_cached_list_without_a_dataset_is_skipped_with_a_warning(errata_path: Path) -> None:
    cached = cached_errata_path()
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(errata_path.read_bytes())
    try:
        with pytest.warns(UserWarning, match="not applied: no dataset"):
            assert errata_for(None, None) is None
    finally:
        cached.unlink()
