"""Helpers for the audit tests: an invented LoCoMo-shaped dataset, probe files in the
MemOS format, and the fake provider's reference-recall rule computed independently."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

CORRECT_AT = 70  # the fake provider labels a score >= 70 CORRECT


def recall(gold: str, answer: str) -> int:
    """What the fake's reference-recall rule should give, written out again here: floor of
    100 x the share of the gold's lowercase words that the answer contains."""
    gold_words = set(re.findall(r"\w+", gold.lower()))
    answer_words = set(re.findall(r"\w+", answer.lower()))
    return 100 * len(gold_words & answer_words) // len(gold_words) if gold_words else 0


def write_dataset(path: Path, samples: int, questions: int) -> Path:
    """`samples` conversations with `questions` items each (categories 4,1,2,3 in turn, and
    one adversarial item at the end of each sample, which the audit must skip)."""
    data = []
    for s in range(samples):
        qa: list[dict[str, Any]] = [
            {
                "question": f"What did speaker A bring to meeting {s}-{q}?",
                "answer": f"a blue lantern number {q}" if q % 2 else f"{q + 2020}",
                "evidence": ["D1:1"],
                "category": (4, 1, 2, 3)[q % 4],
            }
            for q in range(questions)
        ]
        qa.append(
            {
                "question": f"What did speaker B sell at meeting {s}?",
                "adversarial_answer": "a lantern",
                "evidence": [],
                "category": 5,
            }
        )
        data.append(
            {
                "sample_id": f"conv-t{s}",
                "conversation": {
                    "speaker_a": "Ada",
                    "speaker_b": "Bo",
                    "session_1_date_time": "1:00 pm on 1 May, 2023",
                    "session_1": [{"speaker": "Ada", "dia_id": "D1:1", "text": "Hello."}],
                },
                "qa": qa,
            }
        )
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def probe_answer(gold: str, index: int) -> str:
    """A probe answer whose recall against the gold varies: none, some or all of its words."""
    words = gold.split()
    kept = words[: index % (len(words) + 1)]
    return " ".join(["perhaps", *kept, "or something similar"])


def write_probe_file(path: Path, dataset_path: Path, answer=probe_answer) -> Path:  # type: ignore[no-untyped-def]
    """A MemOS-format probe file for every non-adversarial question of the dataset."""
    samples = json.loads(dataset_path.read_text(encoding="utf-8"))
    results: dict[str, list[dict[str, Any]]] = {}
    for i, sample in enumerate(samples):
        items = results.setdefault(f"locomo_exp_user_{i}", [])
        for j, qa in enumerate(sample["qa"]):
            if qa["category"] == 5:
                continue
            items.append(
                {
                    "question_id": f"locomo_{i}_qa{j}",
                    "question": qa["question"],
                    "golden_answer": qa["answer"],
                    "generated_answer": answer(str(qa["answer"]), j),
                    "llm_judgments": {"judgment_1": j % 2 == 0, "judgment_2": j % 3 == 0},
                    "category": str(qa["category"]),
                }
            )
    path.write_text(json.dumps({"detailed_results": results}), encoding="utf-8")
    return path


def probe_items(path: Path) -> list[dict[str, Any]]:
    raw = json.loads(path.read_text(encoding="utf-8"))["detailed_results"]
    return [item for items in raw.values() for item in items]
