"""Writing a judge pass into an output folder, composing with `locoscore score`.

judgments.jsonl is rewritten whole; scores.jsonl gains j_* fields on the lines it already
has (matched by sample_id + qa_index, else question text) and keeps everything else;
summary.json gains or replaces only its "judge" key. Every write is atomic.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl, write_json_atomic, write_jsonl_atomic
from locoscore.data.models import PredictionRecord
from locoscore.errors import InputError
from locoscore.judge.aggregate import QuestionScores, summarise
from locoscore.judge.plan import JudgmentRow
from locoscore.judge.runner import JudgeRun
from locoscore.judge.settings import ResolvedJudge

JUDGMENTS_FILE = "judgments.jsonl"
SCORES_FILE = "scores.jsonl"
SUMMARY_FILE = "summary.json"
CACHE_FILE = "judge_cache.sqlite"


def question_scores(
    records: list[PredictionRecord], rows: list[JudgmentRow], runs: int
) -> list[QuestionScores]:
    by_key: dict[str, list[float | None]] = {r.key: [None] * runs for r in records}
    for row in rows:
        if row.key in by_key and 0 <= row.run < runs:
            by_key[row.key][row.run] = row.score
    return [QuestionScores(r.key, r.category, by_key[r.key]) for r in records]


def _match_key(sample_id: Any, qa_index: Any, question: Any) -> str:
    if sample_id is not None and qa_index is not None:
        return f"id:{sample_id}#{qa_index}"
    return f"q:{question}"


def merge_scores(
    path: Path,
    all_records: list[PredictionRecord],
    questions: list[QuestionScores],
    signature: str,
) -> None:
    fields = {q.key: {**q.fields(), "j_protocol": signature} for q in questions}
    by_match = {
        _match_key(r.sample_id, r.qa_index, r.question): fields.get(r.key) for r in all_records
    }
    if path.exists():
        try:
            lines = read_jsonl(path)
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read existing scores: {exc}", file=str(path)) from None
        seen: set[str] = set()
        for line in lines:
            match = _match_key(line.get("sample_id"), line.get("qa_index"), line.get("question"))
            seen.add(match)
            extra = by_match.get(match)
            if extra is not None:
                line.update(extra)
        for record in all_records:
            match = _match_key(record.sample_id, record.qa_index, record.question)
            extra = by_match.get(match)
            if match not in seen and extra is not None:
                lines.append({**record.base_row(), **extra})
    else:
        lines = []
        for record in all_records:
            extra = by_match.get(_match_key(record.sample_id, record.qa_index, record.question))
            lines.append({**record.base_row(), **(extra or {})})
    write_jsonl_atomic(path, lines)


def judge_summary(
    judge: ResolvedJudge, questions: list[QuestionScores], run: JudgeRun
) -> dict[str, Any]:
    s = judge.settings
    stats = run.stats
    section: dict[str, Any] = {
        "signature": judge.signature,
        "protocol": judge.protocol,
        "provider": judge.provider,
        "model": judge.model,
        "temperature": judge.sampling.temperature,
        "api_version": judge.sampling.api_version,
        "runs": s.runs,
        "prompt_hash": judge.prompt_hash,
        "prompt_name": judge.template.name,
        "include_adversarial": s.include_adversarial,
        "scale": "0-100",
        "std": "sample (n-1)",
    }
    section.update(summarise(questions, s.runs))
    section["calls"] = {
        "made": stats.made,
        "cached": stats.cached,
        "failed": stats.failed,
        "skipped": stats.skipped,
        "short_circuited": stats.short_circuited,
    }
    section["usage"] = {
        "input_tokens": stats.input_tokens,
        "output_tokens": stats.output_tokens,
        "estimated_cost_usd": round(stats.cost_usd, 4) if stats.cost_known else None,
    }
    if run.stop_reason:
        section["stopped"] = run.stop_reason
    return section


def merge_summary(path: Path, section: dict[str, Any]) -> None:
    summary: dict[str, Any] = {}
    if path.exists():
        try:
            summary = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read existing summary: {exc}", file=str(path)) from None
        if not isinstance(summary, dict):
            raise InputError("expected a JSON object", file=str(path))
    summary["judge"] = section
    write_json_atomic(path, summary)


def write_outputs(
    out_dir: Path,
    judge: ResolvedJudge,
    all_records: list[PredictionRecord],
    judged: list[PredictionRecord],
    run: JudgeRun,
) -> dict[str, Any]:
    """Write the three files; return the summary's judge section."""
    order = {r.key: i for i, r in enumerate(judged)}
    rows = sorted(run.rows, key=lambda r: (order.get(r.key, len(order)), r.run))
    write_jsonl_atomic(out_dir / JUDGMENTS_FILE, [r.as_json() for r in rows])
    questions = question_scores(judged, rows, judge.settings.runs)
    merge_scores(out_dir / SCORES_FILE, all_records, questions, judge.signature)
    section = judge_summary(judge, questions, run)
    merge_summary(out_dir / SUMMARY_FILE, section)
    return section
