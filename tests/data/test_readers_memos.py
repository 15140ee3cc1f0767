"""The memos format (MemOS / EverMemOS / OmniMemEval): ids, recorded J, errors."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.benchmarks.locomo.data.load import load_predictions
from locoscore.benchmarks.locomo.data.readers import read_predictions
from locoscore.cli import app
from locoscore.errors import InputError

MEMOS = "memos-format/full-context_{}_memos-prompt.json"


def _memos_file(path: Path, items: list[dict[str, Any]], **top: Any) -> Path:
    path.write_text(json.dumps({"detailed_results": {"locomo_exp_user_0": items}, **top}))
    return path


def _item(**changes: Any) -> dict[str, Any]:
    item = {
        "question_id": "locomo_0_qa0",
        "question": "When did Caroline go to the LGBTQ support group?",
        "golden_answer": "7 May 2023",
        "generated_answer": "7 May 2023",
        "llm_judgments": {"judgment_1": True, "judgment_2": False, "judgment_3": True},
        "category": "2",
    }
    item.update(changes)
    return {k: v for k, v in item.items() if v is not ...}


@pytest.mark.parametrize(
    ("model", "mean", "per_run"),
    [
        ("gpt-4o-mini", 74.29, [74.22, 74.29, 74.35]),
        ("gpt-4.1-mini", 81.95, [81.82, 82.01, 82.01]),
    ],
)
def test_real_memos_files_give_the_recorded_j_of_their_metadata(
    peers_dir: Path, locomo_path: Path, model: str, mean: float, per_run: list[float]
) -> None:
    path = peers_dir / MEMOS.format(model)
    loaded = load_predictions(path, dataset=locomo_path, strict=True)
    recorded = loaded.provenance()["input"]["recorded_judge"]
    metadata = json.loads(path.read_text())["metadata"]
    assert loaded.read.format == "memos" and loaded.join is not None
    assert loaded.join.matched == 1540
    assert round(recorded["overall"]["mean"], 2) == mean
    assert [round(m, 2) for m in recorded["overall"]["per_run_means"]] == per_run
    assert recorded["overall"]["mean"] == pytest.approx(100 * metadata["mean_accuracy"], abs=1e-3)
    assert recorded["overall"]["majority_vote"] == pytest.approx(
        100 * metadata["majority_vote_accuracy"], abs=1e-3
    )
    # the metadata's std is the population std over 3 runs; ours is the sample std
    assert recorded["overall"]["std"] == pytest.approx(
        100 * metadata["std_accuracy"] * math.sqrt(3 / 2), abs=1e-3
    )
    assert recorded["judge_model"] == "gpt-4o-mini" and recorded["runs"] == 3


@pytest.mark.parametrize(
    ("name", "overall", "by_category"),
    [
        ("specific-but-wrong", 10.61, {"4": 15.18, "1": 5.91, "2": 3.43, "3": 8.33}),
        ("vague-but-topical", 62.81, {"4": 68.53, "1": 44.44, "2": 63.24, "3": 65.28}),
    ],
)
def test_probe_files_give_the_published_recorded_acceptance(
    locomo_path: Path, name: str, overall: float, by_category: dict[str, float]
) -> None:
    path = locomo_path.parent / "judge-probes" / f"{name}.json"
    recorded = load_predictions(path, dataset=locomo_path).provenance()["input"]["recorded_judge"]
    assert round(recorded["overall"]["mean"], 2) == overall
    assert {c: round(v["mean"], 2) for c, v in recorded["by_category"].items()} == by_category
    assert recorded["overall"]["n"] == 1540


def test_question_id_names_the_sample_and_its_full_qa_index(
    peers_dir: Path, locomo_path: Path
) -> None:
    records = read_predictions(peers_dir / MEMOS.format("gpt-4o-mini")).records
    joined = load_predictions(peers_dir / MEMOS.format("gpt-4o-mini"), dataset=locomo_path).records
    last = records[-1]  # locomo_9_qa<j>: the 10th sample, j counting category-5 items too
    assert (last.conversation, last.qa_index) == (9, joined[-1].qa_index)
    assert joined[-1].sample_id == "conv-50"
    assert all(r.recorded["llm_judgments"] for r in records)


def test_int_gold_and_judgment_order_are_kept(tmp_path: Path) -> None:
    path = _memos_file(
        tmp_path / "m.json",
        [_item(golden_answer=2022, llm_judgments={"judgment_2": False, "judgment_1": True})],
    )
    record = read_predictions(path).records[0]
    assert record.answer == 2022 and record.answer_text == "2022"
    assert record.recorded["llm_judgments"] == [True, False]


def test_text_that_differs_from_the_dataset_is_one_error(tmp_path: Path, locomo_path: Path) -> None:
    path = _memos_file(tmp_path / "m.json", [_item(question="When did Melanie paint?")])
    with pytest.raises(InputError) as caught:
        load_predictions(path, dataset=locomo_path)
    error = caught.value
    assert (error.file, error.record, error.field) == (
        str(path),
        "locomo_exp_user_0[0]",
        "question",
    )
    assert "conv-26#0" in str(error)


@pytest.mark.parametrize(
    ("question_id", "why"),
    [("locomo_10_qa0", "no sample 10"), ("locomo_0_qa999", "has 199 questions")],
)
def test_ids_that_do_not_map_are_one_error(
    tmp_path: Path, locomo_path: Path, question_id: str, why: str
) -> None:
    path = _memos_file(tmp_path / "m.json", [_item(question_id=question_id)])
    with pytest.raises(InputError, match=why) as caught:
        load_predictions(path, dataset=locomo_path)
    assert caught.value.field == "question_id"


BAD_ITEMS = {
    "bad-question-id": (_item(question_id="q0"), "question_id"),
    "missing-generated-answer": (_item(generated_answer=...), "generated_answer"),
    "missing-golden-answer": (_item(golden_answer=...), "golden_answer"),
    "judgment-not-bool": (_item(llm_judgments={"judgment_1": "yes"}), "llm_judgments.judgment_1"),
    "judgment-key": (_item(llm_judgments={"run1": True}), "llm_judgments"),
    "judgments-not-object": (_item(llm_judgments=[True]), "llm_judgments"),
    "category-out-of-range": (_item(category="9"), "category"),
}


@pytest.mark.parametrize("name", BAD_ITEMS)
def test_malformed_item_names_file_record_and_field(tmp_path: Path, name: str) -> None:
    item, field = BAD_ITEMS[name]
    path = _memos_file(tmp_path / "m.json", [_item(), item])
    with pytest.raises(InputError) as caught:
        read_predictions(path)
    assert (caught.value.record, caught.value.field) == ("locomo_exp_user_0[1]", field)


def test_repeated_question_id_is_an_error(tmp_path: Path) -> None:
    path = _memos_file(tmp_path / "m.json", [_item(), _item()])
    with pytest.raises(InputError, match="same question as locomo_exp_user_0\\[0\\]"):
        read_predictions(path)


def test_detailed_results_that_is_not_an_object_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"detailed_results": [_item()]}))
    with pytest.raises(InputError, match="memos format expects") as caught:
        read_predictions(path, "memos")
    assert caught.value.field == "detailed_results"


def test_cli_score_writes_recorded_j_beside_the_report(
    peers_dir: Path, locomo_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    path = peers_dir / MEMOS.format("gpt-4.1-mini")
    result = CliRunner().invoke(
        app, ["score", str(path), "--dataset", str(locomo_path), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["input"]["format"] == "memos"
    assert round(summary["input"]["recorded_judge"]["overall"]["mean"], 2) == 81.95
    report = (out / "report.md").read_text()
    assert "Recorded by the source harness (gpt-4o-mini, 3 run(s)" in report
    assert "| 81.95 ± 0.11 |" in report


def test_cli_mismatched_text_exits_2_and_writes_nothing(tmp_path: Path, locomo_path: Path) -> None:
    path = _memos_file(tmp_path / "m.json", [_item(question="Who?")])
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["score", str(path), "--dataset", str(locomo_path), "--out", str(out)]
    )
    assert result.exit_code == 2
    assert "m.json, record locomo_exp_user_0[0], field 'question'" in result.output
    assert "Traceback" not in result.output and not out.exists()
