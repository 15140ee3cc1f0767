"""A BEAM judge pass over a run's predictions: expand, judge with the shared machinery, score.

Each prediction becomes one judge record per rubric item (and per line/item pair for event
ordering); the items go through the shared fold (`judge.folder.judge_jobs`) — the folder's
cache, resume, batch, cost cap and dry run as for any judge — and their verdicts come back
as question scores.
A question with no prediction, or whose answer failed, scores 0 and is counted as missing.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from locoscore._io import sha256_file
from locoscore.benchmarks.beam import judge as beam_judge
from locoscore.benchmarks.beam.data import ABILITIES, ABILITY_IDS, BeamDataset, BeamQuestion
from locoscore.benchmarks.beam.scoring import aggregate_abilities
from locoscore.data.sample import QuestionSample, SampleSpec
from locoscore.errors import InputError
from locoscore.judge.engine import PassResult
from locoscore.judge.folder import FoldResult, JudgeJob, denominator, judge_jobs
from locoscore.judge.items import JudgeItem
from locoscore.judge.settings import JudgeSettings
from locoscore.results.answers_file import answer_lines
from locoscore.results.identity import InputIdentity, answers_identity
from locoscore.results.layout import JUDGE_CACHE
from locoscore.stats import normal_mean_ci, sample_std
from locoscore.summation import ordered_mean

ITEM_PROMPT = beam_judge.ITEM_PROMPT
MATCH_PROMPT = beam_judge.MATCH_PROMPT


@dataclass(frozen=True)
class BeamPrediction:
    question_id: str
    response: str
    failed: bool


def predictions_identity(path: Path, predictions: list[BeamPrediction]) -> InputIdentity:
    """The answers as a results folder records them: the (question id, answer) pairs of the
    answered questions (and the file's hash, as for any input)."""
    pairs = [(p.question_id, p.response) for p in predictions if not p.failed]
    return answers_identity(str(path), pairs, file_sha256=sha256_file(path))


def read_predictions(path: Path, data: BeamDataset) -> list[BeamPrediction]:
    """A run's predictions.jsonl (or any JSONL of `{question_id, prediction}`; `hypothesis`
    and `response` are accepted names); ids must be the dataset's."""
    known = {q.question_id for q in data.questions}
    out: list[BeamPrediction] = []
    for where, qid, record in answer_lines(path, known, str(data.path)):
        name = next((n for n in ("prediction", "hypothesis", "response") if n in record), None)
        text = record.get(name) if name else None
        if not isinstance(text, str):
            raise InputError(
                "missing or not a string", file=str(path), record=where, field="prediction"
            )
        out.append(BeamPrediction(qid, text, bool(record.get("error"))))
    return out


def _items(
    questions: list[BeamQuestion], predictions: dict[str, BeamPrediction], *, official: bool
) -> tuple[list[JudgeItem], list[JudgeItem]]:
    """The rubric items and the order pairs as neutral judge items; the keys are the ones
    the judge cache has always been keyed by (`question_id#index`, `question_id|pair#index`)."""
    items: list[JudgeItem] = []
    matches: list[JudgeItem] = []
    for question in questions:
        prediction = predictions.get(question.question_id)
        if prediction is None or prediction.failed:
            continue
        calls = beam_judge.question_calls(
            question.question_id,
            question.text,
            question.rubric,
            prediction.response,
            ordering=question.ability == "event_ordering",
            official=official,
        )
        for call in calls:
            name = call.question_id if call.kind == "item" else f"{call.question_id}|pair"
            item = JudgeItem(
                key=f"{name}#{call.index}",
                question_id=name,
                index=call.index,
                type_id=ABILITIES.index(question.ability) + 1,
                question=call.question,
                reference=str(call.reference),
                candidate=call.candidate,
                source=f"{call.question_id} {call.kind} {call.index}",
            )
            (items if call.kind == "item" else matches).append(item)
    return items, matches


@dataclass
class BeamJudgeResult:
    fold: FoldResult  # the item pass, then the pair pass when there are pairs
    summary: dict[str, Any] | None = None
    rows: list[dict[str, Any]] = field(default_factory=list)
    sample: QuestionSample | None = None  # `--limit`: the questions judged

    @property
    def items(self) -> PassResult:
        return self.fold.results[0]

    @property
    def matches(self) -> PassResult | None:
        return self.fold.results[1] if len(self.fold.results) > 1 else None

    def passes(self) -> list[PassResult]:
        return self.fold.passes()

    @property
    def calls_planned(self) -> int:
        return sum(len(p.plan.missing) for p in self.passes())


def settings_for(settings: JudgeSettings, *, official: bool) -> tuple[JudgeSettings, JudgeSettings]:
    """The item judge (rubric protocol, BEAM item prompt) and the pair judge (binary). Both
    at temperature 0 unless set (the official judge runs at 0); every ability is judged."""
    temperature = 0.0 if settings.temperature is None else settings.temperature
    prompt = beam_judge.OFFICIAL_ITEM_PROMPT if official else ITEM_PROMPT
    base = dataclasses.replace(settings, include_adversarial=True, temperature=temperature)
    item = dataclasses.replace(base, protocol="rubric", template=prompt)
    match = dataclasses.replace(base, protocol="binary", template=MATCH_PROMPT)
    return item, match


async def beam_judge_pass(
    predictions: list[BeamPrediction],
    data: BeamDataset,
    settings: JudgeSettings,
    out: Path,
    *,
    official: bool,
    sample: SampleSpec | QuestionSample | None = None,
    sampler: Sampler,
    **pass_options: Any,
) -> BeamJudgeResult:
    """Both judges of the answers into the folder's cache; `pass_options` are the engine's
    (`engine.run_pass`: dry_run, batch, user_cache, progress, ...)."""
    by_id = {p.question_id: p for p in predictions}
    # every question of the conversations answered: an unanswered one counts as wrong
    answered = {q.conversation_id for q in data.questions if q.question_id in by_id}
    questions = [q for q in data.questions if q.conversation_id in answered]
    # `--limit`: stratified by the ten abilities as `run` draws it (or the run's own sample)
    drawn = draw_sample(sample, questions, sampler)
    if drawn is not None:
        questions = drawn.keep(questions, lambda q: q.question_id)
    item_records, match_records = _items(questions, by_id, official=official)
    item_settings, match_settings = settings_for(settings, official=official)
    jobs = [JudgeJob("items", item_records, item_settings)]
    if match_records:
        jobs.append(JudgeJob("pairs", match_records, match_settings))
    fold = await judge_jobs(jobs, out / JUDGE_CACHE, **pass_options)
    result = BeamJudgeResult(fold, sample=drawn)
    if not fold.complete:  # a dry run, or a batch still running: nothing to score yet
        return result
    items, matches = result.items, result.matches
    result.rows, result.summary = score_verdicts(
        questions, by_id, items, matches, runs=settings.runs, official=official
    )
    return result


# The benchmark's one sample draw (`Benchmark.draw_sample`), passed in by the benchmark so
# that this part never imports its face back.
Sampler = Callable[
    [SampleSpec | QuestionSample | None, Iterable[tuple[str, int]]], QuestionSample | None
]


def draw_sample(
    request: SampleSpec | QuestionSample | None,
    questions: Sequence[BeamQuestion],
    sampler: Sampler,
) -> QuestionSample | None:
    """BEAM's questions through the one draw of `run`, `judge` and `audit`."""
    return sampler(request, ((q.question_id, ABILITY_IDS[q.ability]) for q in questions))


def _verdicts(result: PassResult | None) -> dict[tuple[str, int], dict[int, float]]:
    """(record sample id, run) → {index: score} from a pass's rows (done and made)."""
    table: dict[tuple[str, int], dict[int, float]] = defaultdict(dict)
    if result is None:
        return table
    for row in result.run.rows if result.run else []:
        if row.score is not None and row.sample_id is not None and row.qa_index is not None:
            table[(row.sample_id, row.run)][row.qa_index] = row.score
    return table


def score_verdicts(
    questions: list[BeamQuestion],
    predictions: dict[str, BeamPrediction],
    items: PassResult,
    matches: PassResult | None,
    *,
    runs: int,
    official: bool,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    return score_tables(
        questions, predictions, _verdicts(items), _verdicts(matches), runs=runs, official=official
    )


def score_tables(
    questions: list[BeamQuestion],
    predictions: dict[str, BeamPrediction],
    grades: Mapping[tuple[str, int], dict[int, float]],
    pairs: Mapping[tuple[str, int], dict[int, float]],
    *,
    runs: int,
    official: bool,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The rows and summary of the verdicts, as (record sample id, run) -> {index: score}
    tables: a pass's (`score_verdicts`), or judgments.jsonl's (`verify`)."""
    rows: list[dict[str, Any]] = []
    for question in questions:
        prediction = predictions.get(question.question_id)
        per_run: list[float | None] = []
        order_f1: list[float] = []
        ordering = question.ability == "event_ordering"
        for run in range(runs):
            if prediction is None or prediction.failed:
                per_run.append(0.0)  # a missing answer counts as wrong
                continue
            pair_table = pairs.get((f"{question.question_id}|pair", run), {})
            scored = beam_judge.score_question(
                question.rubric,
                prediction.response,
                grades.get((question.question_id, run), {}),
                {k: v >= 50 for k, v in pair_table.items()} if ordering else None,
                official=official,
            )
            per_run.append(scored.score)
            if scored.order is not None:
                order_f1.append(scored.order.f1)
        present = [s for s in per_run if s is not None]
        rows.append(
            {
                "question_id": question.question_id,
                "ability": question.ability,
                "beam_runs": per_run,
                "beam_score": sum(present) / len(present) if present else None,
                "beam_order_f1": sum(order_f1) / len(order_f1) if order_f1 else None,
                "beam_missing": prediction is None or prediction.failed,
            }
        )
    return rows, summarise(rows, runs)


def summarise(rows: list[dict[str, Any]], runs: int) -> dict[str, Any]:
    scored = [r for r in rows if r["beam_score"] is not None]
    agg = aggregate_abilities([(r["ability"], r["beam_score"]) for r in scored], ABILITIES)
    per_ability: dict[str, Any] = {}
    for ability in ABILITIES:
        values = [r["beam_score"] for r in scored if r["ability"] == ability]
        if not values:
            continue
        ci = normal_mean_ci(values)
        per_ability[ability] = {
            "mean": agg.per_ability[ability],
            "ci95": [ci.low, ci.high],
            "n": len(values),
        }
    run_means = []
    for run in range(runs):
        values = [r["beam_runs"][run] for r in rows if r["beam_runs"][run] is not None]
        if values:
            run_means.append(ordered_mean(values))
    order_f1 = [r["beam_order_f1"] for r in rows if r["beam_order_f1"] is not None]
    overall = normal_mean_ci([r["beam_score"] for r in scored]) if scored else None
    return {
        "per_ability": per_ability,
        "mean_of_abilities": agg.mean_of_abilities,
        "question_weighted": agg.question_weighted,
        "question_weighted_ci95": [overall.low, overall.high] if overall else None,
        **denominator(len(rows), len(scored)),  # the fold's count: scored of questions
        "missing": sum(1 for r in rows if r["beam_missing"]),
        "run_means": run_means,
        "run_std": sample_std(run_means),
        "event_ordering_matched_f1": sum(order_f1) / len(order_f1) if order_f1 else None,
    }
