"""`locoscore judge --benchmark longmemeval`: every submitted answer judged N times by
locoscore's judge machinery (cache, retries, budgets, batch) through the shared fold
(`judge.folder`: failure gate, served model and `fake`, cost across attempts), with the
per-type rules, and aggregated as LongMemEval defines it (`accuracy`). Writes
judgments.jsonl and the "judge" section of summary.json (the official evaluator's labels,
when the file carries them, as `recorded_judge` beside it)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from locoscore._io import sha256_file, write_json_atomic, write_jsonl_atomic
from locoscore.benchmarks.longmemeval import judging
from locoscore.benchmarks.longmemeval.accuracy import accuracy, score_lines
from locoscore.benchmarks.longmemeval.answers import Answers, identity, read_answers
from locoscore.benchmarks.longmemeval.data import LongMemEvalData, QuestionMeta
from locoscore.data.sample import QuestionSample, SampleSpec
from locoscore.errors import InputError
from locoscore.generic.judging import JudgeOptions, judge_one_job
from locoscore.judge.engine import PassResult
from locoscore.judge.folder import gate, open_folder, section_fold, section_head
from locoscore.judge.settings import JudgeSettings
from locoscore.results.folder import load_summary
from locoscore.results.layout import JUDGMENTS, SCORES, SUMMARY


def lme_settings(settings: JudgeSettings, type_templates: dict[str, Path]) -> JudgeSettings:
    """Binary verdicts with the per-type rules (a `--prompt-template` replaces them all)."""
    if settings.protocol != "binary":
        raise InputError(
            "LongMemEval's judge is binary: pass --protocol binary", field="--protocol"
        )
    template = settings.template or judging.with_user_templates(
        judging.builtin_template(), type_templates
    )
    # every type is judged: the judge's category-5 exclusion (LoCoMo's adversarial one)
    # must not drop the rule that has id 5; LongMemEval excludes no type, so the signature
    # carries no `adv:` part
    return dataclasses.replace(
        settings, template=template, include_adversarial=True, signs_exclusion=False
    )


def recorded_summary(metas: list[QuestionMeta], answers: Answers) -> dict[str, Any] | None:
    if not answers.recorded:
        return None
    scores = {q: float(label) for q, label in answers.recorded.items()}
    return {
        "source": "autoeval_label",
        "models": sorted(answers.recorded_models),
        **accuracy(metas, scores),
    }


# The benchmark's one sample draw (`Benchmark.draw_sample`), passed in by the benchmark so
# that this part never imports its face back.
Sampler = Callable[
    [SampleSpec | QuestionSample | None, Iterable[tuple[str, int]]], QuestionSample | None
]


def draw_sample(
    data: LongMemEvalData, request: SampleSpec | QuestionSample | None, sampler: Sampler
) -> QuestionSample | None:
    """`--limit`: a sample of the file's questions (missing answers count, so the file is
    the population), stratified by the six question types as `run` draws it; or the run's
    own sample (its run.json's) kept as it is."""
    type_ids = judging.TYPE_IDS
    return sampler(request, ((m.question_id, type_ids[m.question_type]) for m in data.questions))


async def judge_longmemeval(
    data: LongMemEvalData,
    answers_path: Path,
    settings: JudgeSettings,
    out: Path,
    *,
    sampler: Sampler,
    **options: Any,
) -> tuple[PassResult, dict[str, Any] | None]:
    """The judge pass into `out`; `options` are `generic.judging.JudgeOptions`'."""
    how = JudgeOptions(**options)
    answers = read_answers(answers_path, data)
    ours = identity(answers)
    drawn = draw_sample(data, how.sample, sampler)
    metas = data.questions if drawn is None else drawn.keep(data.questions, _question_id)
    settings = lme_settings(settings, dict(how.type_templates or {}))
    open_folder(out, ours, how.claim, dry_run=how.dry_run)  # the folder guard, before any call
    wanted = {m.question_id for m in metas}
    predictions = {q: p for q, p in answers.predictions.items() if q in wanted}
    items = judging.judge_items(data, predictions)
    fold, result = await judge_one_job(items, settings, out, how)
    if result is None:
        return fold.results[0], None
    # a question's J: the mean of its runs with a verdict (None: every run failed)
    scores = fold.question_means("answers")
    figures = accuracy(metas, scores)
    section: dict[str, Any] = {
        **section_head(fold, drawn),
        "benchmark": "longmemeval",
        "rules": "abstention by the _abs id, then the question type",
        "input": {
            "path": str(answers_path),
            "sha256": sha256_file(answers_path),
            "format": answers.format,
            **ours.to_json(),
        },
        "dataset": {
            "path": str(data.path),
            "file": data.path.name,
            "sha256": data.sha256,
            "version": data.version,
        },
        "failed_answers": len(answers.failed),
        **figures,
        # the headline is over the questions with a verdict; the count says so
        **section_fold(
            fold, questions=figures["questions"], scored=figures["questions"] - figures["unjudged"]
        ),
    }
    gate(section, fold, how.unscored_share)
    runs = result.judge.settings.runs
    if runs > 1:
        section["runs_per_question"] = runs
    recorded = recorded_summary(metas, answers)
    if recorded is not None:
        section["recorded_judge"] = recorded
    summary = load_summary(out)
    summary["benchmark"] = "longmemeval"
    summary["judge"] = section
    write_jsonl_atomic(out / JUDGMENTS, [r.as_json() for r in fold.rows()])
    write_jsonl_atomic(out / SCORES, score_lines(metas, scores))
    write_json_atomic(out / SUMMARY, summary)
    return result, section


def _question_id(meta: QuestionMeta) -> str:
    return meta.question_id
