"""A judge pass over keyed prediction records, N runs a question, written into an output
folder, composing with `locoscore score`: each question's runs become its j_* fields
(`j_mean`, `j_std`, `j_runs`, `j_scores`, `j_failures`), the judge section holds J per type,
overall and run to run (`generic.judge_runs`).

A benchmark brings its records (each with its question key, type id and the scores.jsonl
row it has before judging), the ones it judges and their judge items; judgments.jsonl is
rewritten whole; scores.jsonl gains j_* fields on the lines it already
has (matched as `locoscore.results.folder` matches rows: sample_id + qa_index, else question
and prediction) and keeps everything else; summary.json gains or replaces only its "judge"
key. Every write is atomic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from locoscore._io import write_jsonl_atomic
from locoscore.data.sample import QuestionSample, with_sample
from locoscore.errors import InputError
from locoscore.generic.judge_runs import QuestionScores, run_counts, summarise
from locoscore.judge.engine import PassResult, run_pass
from locoscore.judge.items import JudgeItem
from locoscore.judge.plan import JudgmentRow
from locoscore.judge.runner import JudgeRun, RunStats
from locoscore.judge.settings import JudgeSettings, ResolvedJudge
from locoscore.llm.endpoint import served_note, without_served
from locoscore.llm.ledger import attempts_json
from locoscore.results.folder import load_scores, load_summary, row_key, write_results
from locoscore.results.layout import JUDGE_CACHE, JUDGMENTS

JUDGE_PREFIX = "j_"


class JudgedRecord(Protocol):
    """A prediction record as the pass reads it."""

    @property
    def key(self) -> str: ...

    @property
    def category(self) -> int: ...

    def base_row(self) -> dict[str, Any]: ...


async def judge_records(
    records: Sequence[JudgedRecord],
    judged: Sequence[JudgedRecord],
    items: list[JudgeItem],
    settings: JudgeSettings,
    out_dir: Path,
    names: Mapping[int, str],
    *,
    input_info: dict[str, Any] | None = None,
    sample: QuestionSample | None = None,
    **options: Any,
) -> PassResult:
    """Judge `items` (those of the `judged` records; cache first) and write judgments,
    scores and summary to out_dir, the section's types named by `names`.

    `options` are the engine's (`engine.run_pass`: batch, dry_run, progress, client,
    poll_interval_s, max_wait_s, initial_concurrency, user_cache). A dry run only plans and
    estimates. A batch still pending after `max_wait_s` leaves the outputs untouched
    (`result.run.pending_batch` names it); rerun to collect it. With a `sample`, the
    summary says the pass is over its questions only."""
    result = await run_pass(items, settings, out_dir / JUDGE_CACHE, **options)
    if result.run is not None and result.run.pending_batch is None:
        result.summary = write_outputs(
            out_dir,
            result.judge,
            records,
            judged,
            result.run,
            names,
            input_info=input_info,
            sample=sample,
        )
    return result


def question_scores(
    records: Sequence[JudgedRecord], rows: list[JudgmentRow], runs: int
) -> list[QuestionScores]:
    by_key: dict[str, list[float | None]] = {r.key: [None] * runs for r in records}
    for row in rows:
        if row.key in by_key and 0 <= row.run < runs:
            by_key[row.key][row.run] = row.score
    return [QuestionScores(r.key, r.category, by_key[r.key]) for r in records]


def scores_rows(
    directory: Path,
    all_records: Sequence[JudgedRecord],
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
    names: Mapping[int, str],
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
    section.update(summarise(questions, s.runs, names))
    section.update(run_counts(questions, s.runs))
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
    all_records: Sequence[JudgedRecord],
    judged: Sequence[JudgedRecord],
    run: JudgeRun,
    names: Mapping[int, str],
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
    section = judge_summary(judge, questions, run, names, sample)
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
