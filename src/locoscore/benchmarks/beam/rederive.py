"""BEAM's score recomputed from a judged folder's judgments.jsonl, for `verify`: each
question's `beam_*` fields and the judge section's figures (per ability, mean of abilities,
question-weighted with its interval, run to run), as `folder.judge_folder` wrote them, with
no model call. The questions are those of the conversations answered (cut to the judge's
sample when it drew one); the protocol (`beam` or `beam-official`) is the section's."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl, write_json_atomic, write_jsonl_atomic
from locoscore.benchmarks.beam.data import BeamDataset
from locoscore.benchmarks.beam.judge_pass import read_predictions, score_tables
from locoscore.results.layout import JUDGMENTS, SCORES, SUMMARY
from locoscore.results.rederived import answers_source, drawn_question_ids, judged_summary

PAIR = "|pair"


def rederive_judgments(directory: Path, data: BeamDataset, out: Path) -> list[str]:
    judged = judged_summary(directory, out)
    if judged is None:
        return []
    summary, judge = judged
    by_id = {p.question_id: p for p in read_predictions(answers_source(directory), data)}
    answered = {q.conversation_id for q in data.questions if q.question_id in by_id}
    questions = [q for q in data.questions if q.conversation_id in answered]
    drawn = drawn_question_ids(judge)
    if isinstance(drawn, list):
        questions = [q for q in questions if q.question_id in set(drawn)]
    grades: dict[tuple[str, int], dict[int, float]] = defaultdict(dict)
    pairs: dict[tuple[str, int], dict[int, float]] = defaultdict(dict)
    for row in read_jsonl(out / JUDGMENTS):
        sample_id, index, run = row.get("sample_id"), row.get("qa_index"), row.get("run")
        score = row.get("score")
        if not isinstance(sample_id, str) or not isinstance(index, int):
            continue
        if not isinstance(run, int) or not isinstance(score, int | float):
            continue
        table = pairs if sample_id.endswith(PAIR) else grades
        table[(sample_id, run)][index] = float(score)
    runs = judge.get("runs")
    rows, figures = score_tables(
        questions,
        by_id,
        grades,
        pairs,
        runs=runs if isinstance(runs, int) and runs > 0 else 1,
        official=judge.get("protocol") == "beam-official",
    )
    write_json_atomic(out / SUMMARY, {**summary, "judge": {**judge, **figures}})
    old = (
        {r.get("question_id"): r for r in read_jsonl(out / SCORES)}
        if (out / SCORES).is_file()
        else {}
    )
    merged: list[dict[str, Any]] = [
        {
            **{k: v for k, v in old.get(r["question_id"], {}).items() if not k.startswith("beam_")},
            **r,
        }
        for r in rows
    ]
    write_jsonl_atomic(out / SCORES, merged)
    return []
