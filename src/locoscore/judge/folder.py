"""One judge pass for any benchmark: its neutral judge items through `run_pass`, the verdicts
back per item, and the parts of a "judge" section every benchmark shares.

A benchmark brings jobs (items plus the settings they are judged with; BEAM has two, its
rubric items and its order pairs) and keeps its own rules: which items, how verdicts become
a question's score, how scores aggregate. What it gets here is written once, with LoCoMo's
guarantees:

- the failure gate: more than `--max-unscored` of the judge runs without a verdict (or a pass
  stopped early) is an `error` in the section, and the command exits 1 on it;
- the denominator said plainly: `scored` of `questions`, so a headline over the questions
  that have a verdict is never shown as over all of them (as LoCoMo, whose J is over the
  questions with a verdict, its count beside it);
- who judged: the served model(s) and the `fake` flag, in the signature and the section;
- calls, tokens and cost across every attempt of the pass (the ledger in the folder's cache
  file), so a rerun answered from the cache reports what the verdicts cost, never $0.00.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from locoscore.data.sample import QuestionSample, with_sample
from locoscore.errors import InputError
from locoscore.judge.engine import PassResult, run_pass
from locoscore.judge.items import JudgeItem
from locoscore.judge.plan import JudgmentRow
from locoscore.judge.settings import JudgeSettings
from locoscore.llm.endpoint import Served, served_note
from locoscore.llm.ledger import Spend, attempts_json

# Above this share of judge runs without a verdict a pass fails (--max-unscored).
DEFAULT_MAX_UNSCORED = 0.10


@dataclass(frozen=True)
class JudgeJob:
    """Items judged with one settings (one protocol and prompt, one ledger of attempts)."""

    name: str
    items: list[JudgeItem]
    settings: JudgeSettings


@dataclass
class FoldResult:
    """The passes of a benchmark's judge, in job order; `passes()` as BEAM's result has it."""

    jobs: list[JudgeJob]
    results: list[PassResult] = field(default_factory=list)

    def passes(self) -> list[PassResult]:
        return list(self.results)

    @property
    def complete(self) -> bool:
        """Every pass ran (not a dry run) and no batch is still pending."""
        return all(r.run is not None and r.run.pending_batch is None for r in self.results)

    def rows(self) -> list[JudgmentRow]:
        """Every verdict row, each pass's in its items' order (then by run)."""
        out: list[JudgmentRow] = []
        for job, result in zip(self.jobs, self.results, strict=True):
            if result.run is None:
                continue
            order = {item.key: i for i, item in enumerate(job.items)}
            out += sorted(result.run.rows, key=lambda r: (order.get(r.key, len(order)), r.run))
        return out

    def runs(self, name: str) -> dict[str, list[float | None]]:
        """Job `name`'s item key -> its score per run (None where the run has no verdict)."""
        index = [j.name for j in self.jobs].index(name)
        job, result = self.jobs[index], self.results[index]
        count = result.judge.settings.runs
        table: dict[str, list[float | None]] = {item.key: [None] * count for item in job.items}
        for row in result.run.rows if result.run is not None else []:
            if row.key in table and 0 <= row.run < count:
                table[row.key][row.run] = row.score
        return table

    def question_means(self, name: str) -> dict[str, float | None]:
        """Job `name`'s question id -> its J, the mean of its runs with a verdict on 0-1
        (None: every run failed, so the question has no J and leaves the denominator)."""
        job = self.jobs[[j.name for j in self.jobs].index(name)]
        table = self.runs(name)
        means: dict[str, float | None] = {}
        for item in job.items:
            used = [v / 100.0 for v in table[item.key] if v is not None]
            means[item.question_id or item.key] = sum(used) / len(used) if used else None
        return means

    def served(self) -> Served:
        """Who made the verdicts of every pass, live or cached."""
        runs = [r.run.served for r in self.results if r.run is not None]
        return Served(tuple(sorted({m for s in runs for m in s.models})), any(s.fake for s in runs))


def open_folder(
    out: Path, ours: Any, claim: Callable[[Any], None] | None, *, dry_run: bool
) -> None:
    """Before any call: `--out` must be a folder, the folder guard (`claim`) must take this
    input (`ours`, the answers' identity), then the folder is made (not on a dry run)."""
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a folder", file=str(out), field="--out")
    if claim is not None:
        claim(ours)  # one input's results per folder
    if not dry_run:
        out.mkdir(parents=True, exist_ok=True)


async def judge_jobs(jobs: list[JudgeJob], cache_path: Path, **pass_options: Any) -> FoldResult:
    """Each job through `run_pass` on the folder's one cache (a job with no item is still
    run: its plan is empty and it costs nothing, so every job has a result)."""
    fold = FoldResult(jobs)
    for job in jobs:
        fold.results.append(await run_pass(job.items, job.settings, cache_path, **pass_options))
    return fold


def spend(results: list[PassResult]) -> dict[str, Any]:
    """`calls` and `usage` of the passes together, across their attempts (the shape LoCoMo's
    section has, `generic.judged_records.calls_and_usage`): `made` and the cost count every attempt;
    `cached`, `failed` (runs without a verdict) are this attempt's."""
    stats = [r.run.stats for r in results if r.run is not None]
    now = sum((s.now() for s in stats), Spend())
    earlier = sum((s.earlier for s in stats), Spend())
    attempts = max((s.earlier.attempts for s in stats), default=0)
    earlier = Spend(
        earlier.requests,
        earlier.results,
        earlier.input_tokens,
        earlier.output_tokens,
        earlier.cost_usd,
        attempts,
    )
    total = now + earlier
    rows = [row for r in results if r.run is not None for row in r.run.rows]
    usage: dict[str, Any] = {
        "input_tokens": total.input_tokens,
        "output_tokens": total.output_tokens,
        "estimated_cost_usd": None if total.cost_usd is None else round(total.cost_usd, 4),
    }
    if any(s.usage_counted_locally for s in stats):
        usage["source"] = "counted locally"
    if usage["estimated_cost_usd"] is None:  # n/a with its reason, never $0
        reasons = [r.run.cost_unknown_reason for r in results if r.run is not None]
        usage["cost_unknown_reason"] = next((x for x in reasons if x), "no price")
    return {
        "calls": {
            "made": total.requests,
            "judgments": total.results,
            "cached": sum(s.cached for s in stats),
            "failed": sum(1 for row in rows if row.score is None),
            "skipped": sum(s.skipped for s in stats),
            "short_circuited": sum(s.short_circuited for s in stats),
            "retries": dict(sum((Counter(s.retries) for s in stats), Counter())),
            "runs": len(rows),
            **attempts_json(now, earlier, "judgments"),
        },
        "usage": usage,
    }


def unscored_problem(rows: list[JudgmentRow], max_share: float) -> str | None:
    """Why the pass's numbers cannot stand: every call failed, or more than `max_share` of its
    runs have no verdict (the numbers would rest on the runs a model happened to finish)."""
    if not rows:
        return None
    failed = [r for r in rows if r.score is None]
    share = len(failed) / len(rows)
    if not failed or (share <= max_share and len(failed) < len(rows)):
        return None
    reasons = Counter((r.error or "unscored").split(":")[0].split(" (")[0] for r in failed)
    why = ", ".join(f"{reason} {n}" for reason, n in reasons.most_common(3))
    head = (
        "every judge call failed"
        if len(failed) == len(rows)
        else f"{share:.0%} of judge runs are unscored, above --max-unscored {max_share:.0%}"
    )
    return (
        f"{head} ({len(failed)} of {len(rows)}: {why}); J would rest on the rest. Raise "
        "--max-tokens, force --response-format, or rerun the same command to retry them"
    )


def fold_problem(fold: FoldResult, max_unscored: float) -> str | None:
    """The gate: a pass stopped early, or too many runs without a verdict."""
    stopped = [r.run.stop_reason for r in fold.results if r.run is not None and r.run.stop_reason]
    if stopped:
        return f"stopped early: {stopped[0]}"
    return unscored_problem(fold.rows(), max_unscored)


def provenance(fold: FoldResult, *, model: str, endpoint: Any) -> dict[str, Any]:
    """Who judged, for the section: the served model(s), `fake`, and the mismatch warning."""
    served = fold.served()
    mismatch = served_note(model, served, endpoint, "judge")
    return {"served": served.to_json(), "warnings": [mismatch] if mismatch else []}


def section_head(fold: FoldResult, sample: QuestionSample | None) -> dict[str, Any]:
    """A judge section's opening: the (first) pass's judge described with who served it,
    its signature with the sample's part, and the sample (None: every question)."""
    described = fold.results[0].judge.describe(fold.served())
    return {
        **described,
        "signature": with_sample(described["signature"], sample),
        "sample": None if sample is None else sample.to_json(),
    }


def section_fold(fold: FoldResult, *, questions: int, scored: int) -> dict[str, Any]:
    """What the fold says in every benchmark's section: the denominator (`scored` of
    `questions`), who judged (served models, `fake`), calls, tokens and cost of every attempt."""
    judge = fold.results[0].judge
    return {
        **denominator(questions, scored),
        **provenance(fold, model=judge.model, endpoint=judge.endpoint),
        **spend(fold.results),
    }


def gate(section: dict[str, Any], fold: FoldResult, max_unscored: float) -> None:
    """The failure gate into the section: its `error` makes the command exit 1."""
    if (problem := fold_problem(fold, max_unscored)) is not None:
        section["error"] = problem


def denominator(questions: int, scored: int) -> dict[str, int]:
    """The count a headline is over: `scored` of `questions` (the rest have no verdict)."""
    return {"questions": questions, "scored": scored, "unscored": questions - scored}


def over_phrase(section: dict[str, Any]) -> str:
    """'over 40 questions', or 'over 36 of 40 questions (4 without a judge verdict)'."""
    questions = int(section.get("questions") or 0)
    unscored = int(section.get("unscored") or 0)
    if not unscored:
        return f"over {questions:,} questions"
    return (
        f"over {questions - unscored:,} of {questions:,} questions "
        f"({unscored:,} without a judge verdict)"
    )
