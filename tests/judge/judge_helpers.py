"""Helpers for the judge tests: small records, settings pointing at the fake provider."""

from __future__ import annotations

import json
import re
from pathlib import Path

from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.judge.settings import JudgeSettings
from locoscore.testing.fake_provider import FakeProvider

ANTHROPIC_KEY = "sk-ant-test-0123456789-SECRETKEY"
OPENAI_KEY = "sk-openai-test-9876543210-SECRETKEY"

_QUESTION = re.compile(r"Question:\n(.*?)\n", re.DOTALL)


def score_by_question(text: str) -> int:
    """A verdict rule that ignores the per-call fence token: equal questions, equal scores."""
    match = _QUESTION.search(text)
    question = match.group(1) if match else text
    return 40 + sum(question.encode()) % 61


def make_records(
    count: int, *, categories: tuple[int, ...] = (1, 2, 3, 4)
) -> list[PredictionRecord]:
    return [
        PredictionRecord(
            sample_id=f"conv-t{i // 10}",
            qa_index=i % 10,
            category=categories[i % len(categories)],
            question=f"What did speaker A bring to gathering number {i}?",
            answer=f"item {i}",
            prediction=f"They brought item {i}.",
        )
        for i in range(count)
    ]


def anthropic_settings(fake: FakeProvider, **overrides: object) -> JudgeSettings:
    values: dict[str, object] = {
        "base_url": fake.url,
        "runs": 1,
        "concurrency": 4,
        "timeout_s": 2.0,
    }
    values.update(overrides)
    return JudgeSettings(**values)  # type: ignore[arg-type]


def openai_settings(fake: FakeProvider, **overrides: object) -> JudgeSettings:
    values: dict[str, object] = {
        "provider": "openai",
        "base_url": fake.openai_url,
        "runs": 1,
        "concurrency": 4,
        "timeout_s": 2.0,
    }
    values.update(overrides)
    return JudgeSettings(**values)  # type: ignore[arg-type]


def generation_requests(fake: FakeProvider) -> list[dict[str, object]]:
    return [e for e in fake.requests_log if e["path"] in ("/v1/messages", "/v1/chat/completions")]


def write_native(path: Path, records: list[PredictionRecord]) -> Path:
    lines = [
        json.dumps(
            {
                "sample_id": r.sample_id,
                "qa_index": r.qa_index,
                "category": r.category,
                "question": r.question,
                "answer": r.answer,
                "prediction": r.prediction,
            }
        )
        for r in records
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
