"""Writing a judge pass into an output folder, composing with `locoscore score`.

judgments.jsonl is rewritten whole; scores.jsonl gains j_* fields on the lines it already
has (matched as `locoscore.results.folder` matches rows: sample_id + qa_index, else question
and prediction) and keeps everything else; summary.json gains or replaces only its "judge"
key. Every write is atomic.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from locoscore._io import write_jsonl_atomic
from locoscore.data.models import PredictionRecord
from locoscore.data.sample import QuestionSample, with_sample
from locoscore.errors import InputError
from locoscore.judge.aggregate import MIN_RUNS_WITHOUT_WARNING, QuestionScores, summarise
from locoscore.judge.plan import JudgmentRow
from locoscore.judge.runner import JudgeRun, RunStats
from locoscore.judge.settings import ResolvedJudge
from locoscore.llm.endpoint import served_note, without_served
from locoscore.llm.ledger import attempts_json
from locoscore.results.folder import load_scores, load_summary, row_key, write_results
from locoscore.results.layout import JUDGMENTS

JUDGE_PREFIX = "j_"


def question_scores(
    records: list[PredictionRecord], rows: list[JudgmentRow], runs: int
) -> list[QuestionScores]:
    by_key: dict[str, list[float | None]] = {r.key: [None] * runs for r in records}
    for row in rows:
        if row.key in by_key and 0 <= row.run < runs:
            by_key[row.key][row.run] = row.score
    return [QuestionScores(r.key, r.category, by_key[r.key]) for r in records]


def scores_rows(
    directory: Path,
    all_records: list[PredictionRecord],
    questions: list[QuestionScores],
    signature: str,
) -> list[dict[str, Any]]:
    """Every existing scores.jsonl row (else each record's base row) with fresh j_* fields."""
    fields = {q.key: {**q.fields(), "j_protocol": signature} for q in questions}
    by_row_key = {row_key(r.base_row()): fields.get(r.key) for r in all_records}
    try:
        existing = load_scores(directory)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read existing scores: {exc}", file=str(directory)) from None
    rows = existing or [r.base_row() for r in all_records]
    seen = {row_key(row) for row in rows}
    rows += [r.base_row() for r in all_records if row_key(r.base_row()) not in seen]
    out = []
    for row in rows:
        kept = {k: v for k, v in row.items() if not k.startswith(JUDGE_PREFIX)}
        out.append({**kept, **(by_row_key.get(row_key(row)) or {})})
    return out


def calls_and_usage(stats: RunStats) -> dict[str, Any]:
    """A pass's `calls` and `usage`, for the whole pass across its attempts: `made`
    (requests) and `judgments` (verdicts returned; more than requests when `n` > 1) with
    this attempt's and the earlier attempts' share; `cached` etc. are this attempt's."""
    now, earlier = stats.now(), stats.earlier
    total = now + earlier
    return {
        "calls": {
            "made": total.requests,
            "judgments": total.results,
            "cached": stats.cached,
            "failed": stats.failed,
            "skipped": stats.skipped,
            "short_circuited": stats.short_circuited,
            "retries": stats.retries,  # this attempt's attempts sent again, by kind
            **attempts_json(now, earlier, "judgments"),
        },
        "usage": {
            "input_tokens": total.input_tokens,
            "output_tokens": total.output_tokens,
            "estimated_cost_usd": None if total.cost_usd is None else round(total.cost_usd, 4),
        },
    }


def judge_summary(
    judge: ResolvedJudge,
    questions: list[QuestionScores],
    run: JudgeRun,
    sample: QuestionSample | None = None,
) -> dict[str, Any]:
    s = judge.settings
    described = judge.describe(run.served)
    section: dict[str, Any] = {
        **described,
        "signature": with_sample(described["signature"], sample),
        "sample": None if sample is None else sample.to_json(),
        "include_adversarial": s.include_adversarial,
        "scale": "0-100",
        "std": "sample (n-1)",
    }
    section.update(summarise(questions, s.runs))
    floor = min(MIN_RUNS_WITHOUT_WARNING, s.runs)
    section["questions_with_failed_runs"] = sum(1 for q in questions if len(q.used) < s.runs)
    section["questions_under_min_runs"] = sum(1 for q in questions if len(q.used) < floor)
    section.update(calls_and_usage(run.stats))
    if run.stats.usage_counted_locally:
        section["usage"]["source"] = "counted locally"
    if section["usage"]["estimated_cost_usd"] is None:  # n/a with its reason, never $0
        section["usage"]["cost_unknown_reason"] = run.cost_unknown_reason or "no price"
    mismatch = served_note(judge.model, run.served, judge.endpoint, "judge")
    section["warnings"] = [mismatch] if mismatch else []
    if run.response_format is not None:
        # What the provider accepted (a compatible server may refuse json_schema): not in
        # the cache key or signature, since the verdict's meaning does not change.
        section["response_format"] = run.response_format
    if run.concurrency is not None:
        section["concurrency"] = run.concurrency
    if run.stop_reason:
        section["stopped"] = run.stop_reason
    return section


def write_outputs(
    out_dir: Path,
    judge: ResolvedJudge,
    all_records: list[PredictionRecord],
    judged: list[PredictionRecord],
    run: JudgeRun,
    *,
    input_info: dict[str, Any] | None = None,
    sample: QuestionSample | None = None,
) -> dict[str, Any]:
    """Write the three files; return the summary's judge section. The existing files are
    read (and a bad one reported) before anything is replaced. With a `sample`, only its
    questions carry j_* fields."""
    order = {r.key: i for i, r in enumerate(judged)}
    rows = sorted(run.rows, key=lambda r: (order.get(r.key, len(order)), r.run))
    questions = question_scores(judged, rows, judge.settings.runs)
    section = judge_summary(judge, questions, run, sample)
    new_rows = scores_rows(out_dir, all_records, questions, section["signature"])
    if input_info is not None:
        section["input"] = input_info
    try:
        previous = load_summary(out_dir)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read existing summary: {exc}", file=str(out_dir)) from None
    earlier = previous.get("judge") if isinstance(previous, dict) else None
    if (
        "response_format" not in section
        and isinstance(earlier, dict)
        and without_served(str(earlier.get("signature"))) == without_served(section["signature"])
        and earlier.get("response_format") is not None
    ):
        # Every verdict came from the cache: the mode is the one the pass that made them used.
        section["response_format"] = earlier["response_format"]
    write_jsonl_atomic(out_dir / JUDGMENTS, [r.as_json() for r in rows])
    write_results(out_dir, new_rows, {"judge": section}, owned_prefixes=(JUDGE_PREFIX,))
    return section
