"""J recomputed from a judged folder's judgments.jsonl, for `verify`: each question's
j_* fields and the judge section's numbers (per category, overall, run to run), as the
judge pass wrote them (`generic.judged_records.write_outputs`), with no model call.

A question is judged when judgments.jsonl holds a line of it; its type is the data file's
(the folder's recomputed scores.jsonl), never the line's own `category`.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl, write_json_atomic, write_jsonl_atomic
from locoscore.benchmarks.locomo.categories import CATEGORY_NAMES
from locoscore.generic.judge_runs import QuestionScores, run_counts, summarise
from locoscore.generic.judged_records import JUDGE_PREFIX
from locoscore.results.folder import load_summary, row_key
from locoscore.results.layout import JUDGMENTS, SCORES, SUMMARY
from locoscore.results.rederived import carry_over


def _runs(judge: dict[str, Any], lines: list[dict[str, Any]]) -> int:
    recorded = judge.get("runs")
    seen = 1 + max((int(r.get("run") or 0) for r in lines), default=0)
    return max(recorded, seen) if isinstance(recorded, int) else seen


def rederive_judgments(directory: Path, out: Path) -> list[str]:
    """The judge's numbers of `directory` recomputed into `out` (which holds the folder's
    recomputed scores); empty: everything was re-derived."""
    carry_over(directory, out)
    summary = load_summary(out)
    judge = summary.get("judge")
    if not isinstance(judge, dict) or not (out / JUDGMENTS).is_file():
        return []
    lines = read_jsonl(out / JUDGMENTS)
    runs = _runs(judge, lines)
    rows = read_jsonl(out / SCORES)
    category = {row_key(r): int(r["category"]) for r in rows if r.get("category") is not None}
    verdicts: dict[str, list[float | None]] = {}
    for line in lines:
        key = str(line.get("key"))
        if key not in category:
            continue  # a verdict on a question the folder does not hold: the guard's finding
        scores = verdicts.setdefault(key, [None] * runs)
        run, score = line.get("run"), line.get("score")
        if isinstance(run, int) and 0 <= run < runs and line.get("error") is None:
            scores[run] = None if score is None else float(score)
    questions = [QuestionScores(key, category[key], s) for key, s in verdicts.items()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        judge.update(summarise(questions, runs, CATEGORY_NAMES))
    judge.update(run_counts(questions, runs))
    write_json_atomic(out / SUMMARY, {**summary, "judge": judge})
    fields = {q.key: q.fields() for q in questions}
    signature = judge.get("signature")
    fresh = []
    for row in rows:
        kept = {k: v for k, v in row.items() if not k.startswith(JUDGE_PREFIX)}
        found = fields.get(row_key(row))
        fresh.append(kept if found is None else {**kept, **found, "j_protocol": signature})
    write_jsonl_atomic(out / SCORES, fresh)
    return []
