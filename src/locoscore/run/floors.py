"""What a run needs from its benchmark for `--system gold-evidence` (the retrieval ceiling):
each question's gold turns, keyed by the ids systems see; a benchmark that names none is
refused before anything is written. The benchmark's blind floors are recorded by
`generic.floors.record_floors`, which every command that scores a folder calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from locoscore.benchmarks.base import Benchmark
from locoscore.data.conversation import Question
from locoscore.errors import InputError


def gold_evidence(
    benchmark: Benchmark, dataset: Any, questions: Sequence[Question], system: str
) -> dict[str, dict[str, tuple[str, ...]]]:
    """Conversation id -> the id a system is shown for each question -> its gold turns, for
    the questions asked (a question the benchmark names none for gets nothing)."""
    gold: dict[str, dict[str, tuple[str, ...]]] = {}
    for question in questions:
        ids = benchmark.gold_evidence(dataset, question)
        if ids:
            gold.setdefault(question.conversation_id, {})[question.system_question_id] = ids
    if not gold:
        raise InputError(
            f"--system {system}: benchmark {benchmark.name} names no gold evidence for the "
            "questions asked, so there is no retrieval ceiling to measure (--system no-memory "
            "gives its floor)"
        )
    return gold
