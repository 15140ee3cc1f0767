"""LongMemEval's J recomputed from a judged folder's judgments.jsonl, for `verify`: each
question's `j` (the mean of its runs with a verdict, 0-1) and the judge section's
accuracies with their intervals, as `judge_pass.judge_longmemeval` wrote them, with no
model call. A question is submitted when judgments.jsonl holds a line of it (the judge is
asked about every submitted answer); the questions are the file's, cut to the judge's
sample when it drew one."""

from __future__ import annotations

from pathlib import Path

from locoscore._io import read_jsonl, write_json_atomic, write_jsonl_atomic
from locoscore.benchmarks.longmemeval.accuracy import accuracy, score_lines
from locoscore.benchmarks.longmemeval.data import LongMemEvalData
from locoscore.results.layout import JUDGMENTS, SCORES, SUMMARY
from locoscore.results.rederived import drawn_question_ids, judged_summary


def rederive_judgments(directory: Path, data: LongMemEvalData, out: Path) -> list[str]:
    judged = judged_summary(directory, out)
    if judged is None:
        return []
    summary, judge = judged
    drawn = drawn_question_ids(judge)
    metas = [m for m in data.questions if drawn is None or m.question_id in set(drawn)]
    by_key = {f"{m.question_id}#{m.position}": m.question_id for m in metas}
    runs: dict[str, list[float]] = {}
    for line in read_jsonl(out / JUDGMENTS):
        qid = by_key.get(str(line.get("key")))
        if qid is None:
            continue  # a verdict on a question outside the judged set
        used = runs.setdefault(qid, [])
        if line.get("error") is None and isinstance(line.get("score"), int | float):
            used.append(float(line["score"]) / 100.0)
    scores: dict[str, float | None] = {q: (sum(v) / len(v) if v else None) for q, v in runs.items()}
    figures = accuracy(metas, scores)
    write_json_atomic(out / SUMMARY, {**summary, "judge": {**judge, **figures}})
    write_jsonl_atomic(out / SCORES, score_lines(metas, scores))
    return []
