"""One judge item judged N times, run by run: the engine's plan and runner on a single
question, for the library calls that judge one answer (no pass, no folder)."""

from __future__ import annotations

from dataclasses import dataclass

from locoscore.judge.cache import JudgeStore
from locoscore.judge.items import JudgeItem
from locoscore.judge.plan import plan_calls
from locoscore.judge.runner import run_plan
from locoscore.judge.settings import JudgeSettings


@dataclass(frozen=True)
class JudgeResult:
    """One judge run: score 0-100, or -1 with the reason in `explanation`."""

    score: float
    explanation: str


async def judge_item_runs(
    item: JudgeItem, settings: JudgeSettings, store: JudgeStore | None = None
) -> list[JudgeResult]:
    """Each of the settings' `runs`, in run order; a run without a score reads -1."""
    judge = settings.resolve()
    plan = plan_calls([item], judge, store)
    run = await run_plan(judge, plan, store)
    results = [JudgeResult(-1.0, "no result") for _ in range(settings.runs)]
    for row in run.rows:
        if row.score is None:
            results[row.run] = JudgeResult(-1.0, row.error or "unscored")
        else:
            results[row.run] = JudgeResult(row.score, row.explanation)
    return results
