"""The judge of a benchmark that declares judge rules: every answer of an answers file judged
N times by the judge engine (cache, retries, budgets, batch, served model, fake flag), then
J per question (the mean verdict over its runs), overall and per type.

The questions are those the answers file holds (a `run --limit` folder is judged over its
own sample, not counted as missing the rest); a failed answer is graded 0 with no call. A
question whose every judge run failed has no J: the section names how many and carries an
`error`, so the command fails rather than showing a headline over fewer questions as over all.

This calls `judge.api.run_pass` over `PredictionRecord`s (the engine's unit today); when the
engine takes neutral judge items, only `_records` changes.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl, sha256_file, write_json_atomic, write_jsonl_atomic
from locoscore.data.conversation import Question
from locoscore.data.models import PredictionRecord
from locoscore.data.sample import QuestionSample, SampleSpec, with_sample
from locoscore.errors import InputError
from locoscore.generic.parts import JudgeRules
from locoscore.generic.scoring import aggregate
from locoscore.judge.api import PassResult, run_pass
from locoscore.judge.outputs import calls_and_usage
from locoscore.judge.settings import JudgeSettings
from locoscore.results.folder import load_summary
from locoscore.results.identity import InputIdentity, answers_identity, submitted_pairs
from locoscore.results.layout import JUDGE_CACHE, JUDGMENTS, SCORES, SUMMARY


@dataclasses.dataclass(frozen=True)
class JudgeTask:
    """What the benchmark contributes to its judge pass."""

    name: str  # the benchmark's name (the prompt's name starts with it)
    fields: dict[str, Any]  # `benchmark` (and `benchmark_source`) for summary.json
    rules: JudgeRules
    questions: Sequence[Question]
    type_keys: Mapping[int, str]  # type id -> key (the rules' names)
    type_names: Mapping[int, str]  # type id -> display name
    data: dict[str, Any]  # the data file as summary.json describes it
    # the benchmark's one sample draw (`Benchmark.draw_sample`): `run`'s, `judge`'s, `audit`'s
    draw: Callable[[Any, list[tuple[str, int]]], QuestionSample | None]


def _records(
    questions: Sequence[Question], answers: Mapping[str, dict[str, Any]]
) -> list[PredictionRecord]:
    return [
        PredictionRecord(
            sample_id=q.question_id,
            qa_index=position,
            category=q.category,
            question=q.text,
            answer=q.gold,
            prediction=str(answers[q.question_id].get("prediction") or ""),
            source=q.question_id,
        )
        for position, q in enumerate(questions)
    ]


def _read_answers(
    path: Path, questions: Sequence[Question], data_name: str
) -> dict[str, dict[str, Any]]:
    from locoscore.benchmarks.answer_lines import answer_lines

    known = {q.question_id for q in questions}
    answers = {}
    for where, qid, record in answer_lines(path, known, data_name):
        if record.get("error") is None and not isinstance(record.get("prediction"), str):
            raise InputError(
                "missing or not a string", file=str(path), record=where, field="prediction"
            )
        answers[qid] = record
    return answers


async def judge_answers(
    task: JudgeTask,
    answers_path: Path,
    settings: JudgeSettings,
    out: Path,
    *,
    dry_run: bool = False,
    batch: bool = False,
    user_cache: bool = False,
    sample: SampleSpec | QuestionSample | None = None,
    type_templates: Mapping[str, Path] | None = None,
    max_unscored: float | None = None,
    progress: Any = None,
    claim: Callable[[InputIdentity], None] | None = None,
) -> tuple[PassResult, dict[str, Any] | None]:
    """Judge `answers_path` into `out`: the pass and the summary's judge section. With
    `max_unscored` (`--max-unscored`), the section's `error` is for more than that share of
    judge runs without a verdict; without it, for any question left without one. `claim` is
    the folder guard, called with the answers' identity before anything is written."""
    if type_templates:
        raise InputError("this benchmark's rules take no --type-template", field="--type-template")
    answers = _read_answers(answers_path, task.questions, str(task.data.get("path")))
    # the same identity a run records for its predictions.jsonl: the two compose
    ours = answers_identity(
        str(answers_path), submitted_pairs(answers.values()), file_sha256=sha256_file(answers_path)
    )
    # drawn over the data's questions, as `run --limit` draws (the same seed, the same
    # sample); a run's own sample (read from its run.json) is kept as it is
    drawn = task.draw(sample, [(q.question_id, q.category) for q in task.questions])
    population = [q for q in task.questions if q.question_id in answers]
    if drawn is not None:
        population = drawn.keep(population, lambda q: q.question_id)
    failed = {q.question_id for q in population if answers[q.question_id].get("error") is not None}
    judged = [q for q in population if q.question_id not in failed]
    template = settings.template or task.rules.template(
        settings.protocol, {key: i for i, key in task.type_keys.items()}, task.name
    )
    # every type is judged by its own rule: the engine's LoCoMo-only skip of category 5
    # must not apply (and a benchmark that excludes no type signs no `adv:` part)
    settings = dataclasses.replace(settings, template=template, include_adversarial=True)
    if out.exists() and not out.is_dir():
        raise InputError("not a folder", file=str(out), field="--out")
    if claim is not None:
        claim(ours)  # one input's results per folder
    records = _records(judged, answers)
    if not dry_run:
        out.mkdir(parents=True, exist_ok=True)
    result = await run_pass(
        records,
        settings,
        out / JUDGE_CACHE,
        batch=batch,
        dry_run=dry_run,
        user_cache=user_cache,
        progress=progress,
    )
    if dry_run or result.run is None or result.run.pending_batch is not None:
        return result, None
    verdicts: dict[str, list[float]] = {r.key: [] for r in records}
    for row in result.run.rows:
        if row.score is not None and row.key in verdicts:
            verdicts[row.key].append(row.score / 100.0)
    j: dict[str, float | None] = dict.fromkeys(failed, 0.0)
    for record in records:
        runs = verdicts[record.key]
        j[record.source] = sum(runs) / len(runs) if runs else None
    scored = {q: v for q, v in j.items() if v is not None}
    types = {q.question_id: task.type_names[q.category] for q in population}
    described = result.judge.describe(result.run.served)
    section: dict[str, Any] = {
        **described,
        "signature": with_sample(described["signature"], drawn),
        "sample": None if drawn is None else drawn.to_json(),
        "input": {"path": str(answers_path), "sha256": ours.file_sha256, **ours.to_json()},
        "dataset": task.data,
        "questions": len(population),
        "judged": len(scored),
        "unscored": len(population) - len(scored),
        "failed_answers": len(failed),
        **aggregate(scored, types, list(task.type_names.values())),
        **calls_and_usage(result.run.stats),
        "response_format": result.run.response_format,
    }
    failed_runs = [r for r in result.run.rows if r.score is None]
    too_many = bool(failed_runs) and (
        len(failed_runs) == len(result.run.rows)
        or (max_unscored is not None and len(failed_runs) / len(result.run.rows) > max_unscored)
    )
    if too_many or (max_unscored is None and section["unscored"]):
        reasons = Counter((r.error or "unscored").split(":")[0] for r in failed_runs)
        why = ", ".join(f"{reason} {n}" for reason, n in reasons.most_common(3))
        section["error"] = (
            f"{section['unscored']} of {len(population)} question(s) have no verdict ({why}); J "
            "above is over the rest only. Rerun the same command to retry the failed calls"
        )
    if result.run.stop_reason:
        section["error"] = f"stopped early: {result.run.stop_reason}"
    order = {r.key: i for i, r in enumerate(records)}
    rows = sorted(result.run.rows, key=lambda r: (order.get(r.key, len(order)), r.run))
    write_jsonl_atomic(out / JUDGMENTS, [r.as_json() for r in rows])
    write_jsonl_atomic(out / SCORES, _score_rows(out, population, types, j))
    summary = load_summary(out)
    summary.update(task.fields)
    summary["judge"] = section
    write_json_atomic(out / SUMMARY, summary)
    return result, section


def _score_rows(
    out: Path,
    population: Sequence[Question],
    types: Mapping[str, str],
    j: Mapping[str, float | None],
) -> list[dict[str, Any]]:
    """The folder's scores.jsonl lines with `j` set (a run's metric columns kept)."""
    path = out / SCORES
    existing = {r.get("question_id"): r for r in read_jsonl(path)} if path.is_file() else {}
    return [
        {
            **existing.get(
                q.question_id, {"question_id": q.question_id, "type": types[q.question_id]}
            ),
            "j": None if (v := j.get(q.question_id)) is None else round(v, 6),
        }
        for q in population
    ]


def judge_lines(section: dict[str, Any], out: Path) -> list[str]:
    """What `judge` prints: J overall and per type, then what was written."""

    def shown(block: dict[str, Any]) -> str:
        if block.get("mean") is None:
            return "n/a"
        low, high = block["ci95"]
        return f"{block['mean']:.1f} [{low:.1f}, {high:.1f}] (n={block['count']})"

    from locoscore.llm.endpoint import through_sentence

    lines = [f"signature: {section['signature']}", f"J overall {shown(section['overall'])}"]
    lines += [f"  {name}: {shown(block)}" for name, block in section["by_type"].items()]
    through = through_sentence("judged", section.get("endpoint"), section["served"]["fake"])
    lines += [through] if through else []
    lines.append(
        f"{section['judged']} of {section['questions']} question(s) judged; "
        f"wrote {out}/{JUDGMENTS}, {SCORES}, {SUMMARY}"
    )
    return lines
