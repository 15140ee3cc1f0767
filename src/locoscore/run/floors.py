"""Floors and ceilings a run needs from its benchmark, asked of the Benchmark object only:

- `gold_evidence`: what the run hands `--system gold-evidence` (the retrieval ceiling):
  each question's gold turns, keyed by the ids systems see; a benchmark that names none is
  refused before anything is written.
- `blind_floors`: the benchmark's blind baselines (`Benchmark.blind_baselines`: floors
  computed without a model, such as always picking a multiple-choice question's longest
  option) over the run's own questions (its sample under `--limit`), recorded in
  summary.json as `floors`: `{"scale": "0-100", "questions": N, "blind": [{"name",
  "description", "score", "ci95", "n", "by_type"}]}`. `score` is the mean per-question
  score x100, the headline's scale, over the questions of the types in the overall (as the
  headline counts them); `by_type` has every type's `{mean, ci95, count}`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from locoscore._io import write_json_atomic
from locoscore.benchmarks.base import Benchmark
from locoscore.data.conversation import Question
from locoscore.errors import InputError
from locoscore.results.folder import load_summary
from locoscore.results.layout import SUMMARY


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


def blind_floors(
    benchmark: Benchmark, dataset: Any, questions: Sequence[Question]
) -> dict[str, Any] | None:
    """The `floors` section of the run's questions; None when the benchmark declares no
    blind baseline."""
    from locoscore.generic.scoring import aggregate

    baselines = benchmark.blind_baselines(dataset, questions)
    if not baselines:
        return None
    types = {q.question_id: benchmark.type_name(q.category) for q in questions}
    left_out = benchmark.excluded_from_overall
    in_overall = {q.question_id for q in questions if q.category not in left_out}
    order = [benchmark.type_name(t) for t in benchmark.type_order]
    blind = []
    for baseline in baselines:
        # a question the baseline gives no score is not counted (`n` says how many were)
        scores = {q: float(v) for q, v in baseline.scores.items() if q in types}
        overall = aggregate({q: v for q, v in scores.items() if q in in_overall}, types, [])
        per_type = aggregate(scores, types, order)["by_type"]
        blind.append(
            {
                "name": baseline.name,
                "description": baseline.description,
                "score": overall["overall"]["mean"],
                "ci95": overall["overall"]["ci95"],
                "n": overall["overall"]["count"],
                "by_type": {t: block for t, block in per_type.items() if block["count"]},
            }
        )
    return {"scale": "0-100", "questions": len(questions), "blind": blind}


def record_floors(
    out: Path,
    summary: dict[str, Any],
    benchmark: Benchmark,
    dataset: Any,
    questions: Sequence[Question],
) -> dict[str, Any]:
    """summary.json (just written by the benchmark's `score_run`) with its `floors`
    section; the summary returned as it now is. A benchmark with none: unchanged."""
    floors = blind_floors(benchmark, dataset, questions)
    if floors is None:
        return summary
    written = load_summary(out)
    written["floors"] = floors
    write_json_atomic(out / SUMMARY, written)
    return {**summary, "floors": floors}
