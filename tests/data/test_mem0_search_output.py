"""Mem0-harness search output, before its evaluation step drops category 5: category-5 items
carry `answer: ""` (the harness writes `val.get("answer", "")`) beside `adversarial_answer`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from locoscore.benchmarks.locomo.data.join import join_to_dataset
from locoscore.benchmarks.locomo.data.readers import read_predictions


def _mem0_file(tmp_path: Path, items: list[dict[str, Any]]) -> Path:
    path = tmp_path / "mem0_search.json"
    path.write_text(json.dumps({"0": items}))
    return path


def test_empty_answer_beside_adversarial_answer_reads_the_adversarial_answer(
    tmp_path: Path,
) -> None:
    item = {"question": "Q?", "answer": "", "adversarial_answer": "Yes", "response": "r"}
    path = _mem0_file(tmp_path, [{**item, "category": 5}])
    record = read_predictions(path).records[0]
    assert (record.answer, record.gold_field) == ("Yes", "adversarial_answer")


def test_empty_answer_outside_category_5_stays_empty(tmp_path: Path) -> None:
    item = {"question": "Q?", "answer": "", "adversarial_answer": "Yes", "response": "r"}
    path = _mem0_file(tmp_path, [{**item, "category": 4}])
    record = read_predictions(path).records[0]
    assert (record.answer, record.gold_field) == ("", "answer")


def test_real_search_output_with_every_category_joins_strictly(
    locomo_path: Path, dataset: Any, tmp_path: Path
) -> None:
    samples = json.loads(locomo_path.read_text())
    shaped = {
        str(index): [
            {
                "question": qa.get("question", ""),
                "answer": qa.get("answer", ""),
                "category": qa.get("category", -1),
                "evidence": qa.get("evidence", []),
                "adversarial_answer": qa.get("adversarial_answer", ""),
                "response": "Not mentioned in the conversation",
                "search_time": 0.25,
                "response_time": 0.5,
            }
            for qa in sample["qa"]
        ]
        for index, sample in enumerate(samples)
    }
    path = tmp_path / "mem0_search.json"
    path.write_text(json.dumps(shaped))
    records = read_predictions(path).records
    joined, report = join_to_dataset(records, dataset, strict=True)
    assert (report.matched, report.problem_count) == (1986, 0)
    assert sum(r.gold_field == "adversarial_answer" for r in joined) == 444
    assert all(r.total_latency_s == 0.75 for r in joined)
