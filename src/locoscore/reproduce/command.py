"""Run, judge and tabulate the Mem0 paper's rows under its settings (`plan`), one results
folder per row under DIR, then DIR/reproduce.md and reproduce.json (`table`).

Every row is an ordinary `locoscore run` then `locoscore judge` folder: rerunning the
command resumes each (finished conversations are not ingested again, cached verdicts are
not asked again). A row that fails (a missing key, answers that failed) is named in the
table with why, and the other rows still run.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from locoscore.data.sample import SampleSpec
from locoscore.errors import InputError, LocoscoreError
from locoscore.judge.settings import JudgeSettings
from locoscore.llm.cost import Estimate
from locoscore.reproduce.plan import (
    PAPER_JUDGE_PROTOCOL,
    PAPER_JUDGE_RUNS,
    PAPER_MODEL,
    RUN_ROWS,
    SKIPPED_ROWS,
    RunRow,
    SkippedRow,
    row_named,
)
from locoscore.reproduce.table import Measured, write_table
from locoscore.results.layout import PREDICTIONS
from locoscore.run.answerer import AnswerSettings
from locoscore.run.settings import RunSettings

if TYPE_CHECKING:
    from locoscore.benchmarks.calls import Terminal


@dataclass(frozen=True)
class ReproduceSettings:
    out: Path
    rows: list[str] | None = None  # None: every row (those whose extra is installed)
    dataset: Path | None = None
    conversations: list[str] | None = None
    sample: SampleSpec | None = None
    top_k: int = 10
    judge_runs: int = PAPER_JUDGE_RUNS
    answer_base_url: str | None = None
    judge_base_url: str | None = None
    # the systems' own model calls (mem0's, graphiti's, langmem's, a-mem's LLM and embedder; the
    # dense row's embeddings): an OpenAI-compatible server instead of OpenAI's
    system_base_url: str | None = None
    concurrency: int = 64
    dry_run: bool = False


@dataclass(frozen=True)
class RowEstimate:
    """A dry run's figures for one row: the run's estimate (as `run --dry-run` prints it)
    and the judge's calls over the same questions."""

    row: RunRow
    run: dict[str, Any]
    judge: Estimate


def plan_rows(names: list[str] | None) -> tuple[list[RunRow], list[SkippedRow]]:
    """The rows to run and the paper's rows that will not be, with why (an extra not
    installed joins the reasons)."""
    if names is None:
        wanted = list(RUN_ROWS)
    else:
        wanted = []
        for name in names:
            try:
                wanted.append(row_named(name))
            except KeyError:
                known = ", ".join(r.name for r in RUN_ROWS)
                raise InputError(f"{name}: unknown row (known: {known})", field="--rows") from None
    run: list[RunRow] = []
    skipped = list(SKIPPED_ROWS)
    for row in wanted:
        if row.installed():
            run.append(row)
        elif names is not None:  # asked for by name: say how to get it
            needs = "its environment" if row.environment else f"the {row.extra} extra"
            raise InputError(f"{row.name} needs {needs} ({row.install_hint()})", field="--rows")
        else:
            published = row.published or row.label
            skipped.append(SkippedRow(published, f"not installed here ({row.install_hint()})"))
    return run, skipped


def system_options(s: ReproduceSettings, row: RunRow) -> dict[str, str]:
    options = dict(row.options)
    if s.system_base_url is not None:
        keys: tuple[str, ...] = ("base_url",) if row.system == "embedding" else ()
        if row.memory_library:  # a memory system: its LLM and its embedder
            keys = ("llm_base_url", "embedder_base_url")
        options.update(dict.fromkeys(keys, s.system_base_url))
    return options


def run_settings(s: ReproduceSettings, row: RunRow) -> RunSettings:
    return RunSettings(
        system=row.system,
        out=s.out / row.name,
        system_options=system_options(s, row),
        dataset=s.dataset,
        conversations=s.conversations,
        include_adversarial=False,  # the paper's 1,540 questions
        top_k=row.top_k if row.top_k is not None else s.top_k,
        concurrency=s.concurrency,
        answer=AnswerSettings(provider="openai", model=PAPER_MODEL, base_url=s.answer_base_url),
        dry_run=s.dry_run,
        sample=s.sample,
    )


def judge_settings(s: ReproduceSettings) -> JudgeSettings:
    return JudgeSettings(
        protocol=PAPER_JUDGE_PROTOCOL,
        provider="openai",
        model=PAPER_MODEL,
        base_url=s.judge_base_url,
        runs=s.judge_runs,
        concurrency=s.concurrency,
    )


def dry_run(s: ReproduceSettings, t: Terminal) -> tuple[list[RowEstimate], list[SkippedRow]]:
    """Each row's `run --dry-run` (a system whose ingestion needs a missing key is counted,
    not ingested) and the judge's calls on the same questions, their answers stood in for
    by the gold (an answer is about as long)."""
    from locoscore.benchmarks.locomo.categories import CATEGORY_GUIDANCE, CATEGORY_NAMES
    from locoscore.judge.items import question_item
    from locoscore.judge.plan import render_prompt
    from locoscore.llm.cost import estimate_calls
    from locoscore.run.pipeline import execute_run, resolve_run

    rows, skipped = plan_rows(s.rows)
    judge = judge_settings(s).resolve()
    estimates = []
    for row in rows:
        resolved = resolve_run(run_settings(s, row))
        result = t.run_pass(execute_run(resolved), None)
        prompts = [
            render_prompt(
                judge,
                question_item(
                    q,
                    str(q.gold),
                    index=None,
                    type_name=CATEGORY_NAMES.get(q.category),
                    guidance=CATEGORY_GUIDANCE.get(q.category, ""),
                ),
            )
            for q in resolved.questions
            for _ in range(judge.settings.runs)
        ]
        judged = estimate_calls(prompts, judge.protocol, judge.model, judge.settings.prices)
        estimates.append(RowEstimate(row, result.dry_run_estimate or {}, judged))
    return estimates, skipped


def reproduce(s: ReproduceSettings, t: Terminal) -> tuple[list[Measured], list[SkippedRow]]:
    """Run and judge every row, then write the table; a row that fails is named in it."""
    rows, skipped = plan_rows(s.rows)
    measured = []
    for row in rows:
        t.out.print(f"== {row.label} ({s.out / row.name})", highlight=False, markup=False)
        try:
            missing = _run_row(s, row, t)
        except LocoscoreError as exc:  # the other rows still run; the table says why
            missing = str(exc)
        measured.append(Measured(row, s.out / row.name, missing))
    write_table(s.out, measured, skipped)
    return measured, skipped


def _run_row(s: ReproduceSettings, row: RunRow, t: Terminal) -> str:
    """Run then judge one row; what kept it from the table ("" when nothing did)."""
    from locoscore.run.outputs import write_run_outputs
    from locoscore.run.pipeline import execute_run, resolve_run

    resolved = resolve_run(run_settings(s, row))
    result = t.run_pass(execute_run(resolved), None)
    folder = s.out / row.name
    write_run_outputs(result, folder)
    resolved.benchmark.build_run_reports(folder, errata=resolved.errata)
    if result.failed:
        return f"{result.failed} answer(s) failed; rerun the same command to retry them"
    if _judge_row(s, folder, resolved.benchmark, t):
        return "the judge did not score every answer; rerun the same command"
    return ""


def _judge_row(s: ReproduceSettings, folder: Path, bench: Any, t: Terminal) -> bool:
    from locoscore.benchmarks.calls import JudgeCall
    from locoscore.data.sample import judged_sample
    from locoscore.run.document import read_run_answer, read_run_sample

    predictions = folder / PREDICTIONS
    request = judged_sample(None, read_run_sample(predictions, bench.run_fingerprint))
    call = JudgeCall.of_folder(
        predictions,
        folder,
        judge_settings(s),
        s.dataset,
        request,
        run_answers={folder: read_run_answer(folder)},
    )
    with warnings.catch_warnings():
        # self-judging is the paper's protocol: the table says so once, for every row
        warnings.filterwarnings("ignore", message="self-judging")
        return bool(bench.judge_command(call, t))
