"""The judge of a benchmark that declares judge rules: every answer of an answers file judged
N times by the judge engine (cache, retries, budgets, batch, served model, fake flag), then
J per question (the mean verdict over its runs), overall and per type.

The questions are those the answers file holds (a `run --limit` folder is judged over its
own sample, not counted as missing the rest); a failed answer is graded 0 with no call. A
question whose every judge run failed has no J: the section says J is over `scored` of
`questions`, and more than `--max-unscored` of the runs without a verdict is an `error`, so the
command fails rather than showing a headline over fewer questions as over all.

The pass is the judge fold every benchmark shares (`judge.folder`: the failure gate, the
denominator, who judged, cost across attempts) over neutral judge items.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl, sha256_file, write_json_atomic, write_jsonl_atomic
from locoscore.data.conversation import Question
from locoscore.data.sample import QuestionSample, SampleSpec
from locoscore.errors import InputError
from locoscore.generic.parts import JudgeRules
from locoscore.generic.scoring import aggregate
from locoscore.judge.engine import PassResult
from locoscore.judge.folder import (
    DEFAULT_MAX_UNSCORED,
    FoldResult,
    JudgeJob,
    gate,
    judge_jobs,
    open_folder,
    over_phrase,
    section_fold,
    section_head,
)
from locoscore.judge.items import JudgeItem, question_item
from locoscore.judge.settings import JudgeSettings
from locoscore.results.answers_file import answer_lines
from locoscore.results.folder import load_summary
from locoscore.results.identity import InputIdentity, answers_identity, submitted_pairs
from locoscore.results.layout import JUDGE_CACHE, JUDGMENTS, SCORES, SUMMARY


@dataclasses.dataclass(frozen=True)
class JudgeOptions:
    """How `locoscore judge` asks a benchmark's pass to run (the `**options` of
    `Benchmark.judge`): a dry run (plan and estimate only), the batch API, the user-level
    cache, `--limit` (a spec the benchmark draws, or a run's own sample), `--type-template`
    files, `--max-unscored` (None: the fold's default), the progress sink, the folder
    guard (`claim`, called with the answers' identity before anything is written), and how
    a batch is polled and waited for (`--batch-poll`, `--batch-wait`)."""

    dry_run: bool = False
    batch: bool = False
    user_cache: bool = False
    sample: SampleSpec | QuestionSample | None = None
    type_templates: Mapping[str, Path] | None = None
    max_unscored: float | None = None
    progress: Any = None
    claim: Callable[[InputIdentity], None] | None = None
    poll_interval_s: float = 30.0  # --batch-poll
    max_wait_s: float = 24 * 3600.0  # --batch-wait

    def engine(self) -> dict[str, Any]:
        """The options that go on to the engine's pass (`judge.engine.run_pass`)."""
        names = ("dry_run", "batch", "user_cache", "progress", "poll_interval_s", "max_wait_s")
        return {name: getattr(self, name) for name in names}

    @property
    def unscored_share(self) -> float:
        return DEFAULT_MAX_UNSCORED if self.max_unscored is None else self.max_unscored


async def judge_one_job(
    items: list[JudgeItem], settings: JudgeSettings, out: Path, options: JudgeOptions
) -> tuple[FoldResult, PassResult | None]:
    """The answers' items through the shared fold on the folder's cache: the fold, and its
    one pass when it is done (None on a dry run or with a batch still pending: the caller
    returns the pass and writes nothing)."""
    fold = await judge_jobs(
        [JudgeJob("answers", items, settings)],
        out / JUDGE_CACHE,
        **options.engine(),
    )
    done = not options.dry_run and fold.complete
    return fold, fold.results[0] if done else None


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


def _items(
    questions: Sequence[Question],
    answers: Mapping[str, dict[str, Any]],
    type_keys: Mapping[int, str],
) -> list[JudgeItem]:
    return [
        question_item(
            q,
            str(answers[q.question_id].get("prediction") or ""),
            index=position,
            type_name=type_keys.get(q.category),  # as the rules name it, for a user template
        )
        for position, q in enumerate(questions)
    ]


def _read_answers(
    path: Path, questions: Sequence[Question], data_name: str
) -> dict[str, dict[str, Any]]:
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
    task: JudgeTask, answers_path: Path, settings: JudgeSettings, out: Path, **options: Any
) -> tuple[PassResult, dict[str, Any] | None]:
    """Judge `answers_path` into `out`: the pass and the summary's judge section. `options`
    are `JudgeOptions`' (the section's `error` is for more than `max_unscored` of the judge
    runs without a verdict)."""
    how = JudgeOptions(**options)
    if how.type_templates:
        raise InputError("this benchmark's rules take no --type-template", field="--type-template")
    answers = _read_answers(answers_path, task.questions, str(task.data.get("path")))
    # the same identity a run records for its predictions.jsonl: the two compose
    ours = answers_identity(
        str(answers_path), submitted_pairs(answers.values()), file_sha256=sha256_file(answers_path)
    )
    # drawn over the data's questions, as `run --limit` draws (the same seed, the same
    # sample); a run's own sample (read from its run.json) is kept as it is
    drawn = task.draw(how.sample, [(q.question_id, q.category) for q in task.questions])
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
    open_folder(out, ours, how.claim, dry_run=how.dry_run)  # the folder guard, before any call
    items = _items(judged, answers, task.type_keys)
    fold, result = await judge_one_job(items, settings, out, how)
    if result is None:
        return fold.results[0], None
    # a question's J: the mean of its runs with a verdict (None: every run failed); a
    # failed answer was graded 0 with no call
    j: dict[str, float | None] = {**dict.fromkeys(failed, 0.0), **fold.question_means("answers")}
    scored = {q: v for q, v in j.items() if v is not None}
    types = {q.question_id: task.type_names[q.category] for q in population}
    section: dict[str, Any] = {
        **section_head(fold, drawn),
        "input": {"path": str(answers_path), "sha256": ours.file_sha256, **ours.to_json()},
        "dataset": task.data,
        "judged": len(scored),
        "failed_answers": len(failed),
        **aggregate(scored, types, list(task.type_names.values())),
        "response_format": None if result.run is None else result.run.response_format,
        **section_fold(fold, questions=len(population), scored=len(scored)),
    }
    gate(section, fold, how.unscored_share)
    write_jsonl_atomic(out / JUDGMENTS, [r.as_json() for r in fold.rows()])
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
    """What `judge` prints: the fold's lines (signature, who judged, calls and cost), J
    overall and per type (each over its count), what it is over, then what was written."""

    def shown(block: dict[str, Any]) -> str:
        if block.get("mean") is None:
            return "n/a"
        low, high = block["ci95"]
        return f"{block['mean']:.1f} [{low:.1f}, {high:.1f}] (n={block['count']})"

    from locoscore.report.spend import judge_section_lines

    lines = [*judge_section_lines(section), f"J overall {shown(section['overall'])}"]
    lines += [f"  {name}: {shown(block)}" for name, block in section["by_type"].items()]
    lines.append(f"J {over_phrase(section)}; wrote {out}/{JUDGMENTS}, {SCORES}, {SUMMARY}")
    return lines
