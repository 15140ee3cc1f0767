"""`locoscore judge`: the LLM judge over a predictions file, N runs per question."""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path
from typing import Any

import typer

from locoscore.cli._app import EXIT_FAILED, app, console, err_console, handle_errors
from locoscore.cli._options import (
    DatasetOpt,
    FormatOpt,
    PredictionKeyOpt,
    PredictionsArg,
    StrictOpt,
)
from locoscore.data.load import load_predictions
from locoscore.errors import InputError
from locoscore.judge.api import PassResult, judge_pass
from locoscore.judge.cache import user_cache_path
from locoscore.judge.prompts import load_template
from locoscore.judge.settings import JudgeSettings
from locoscore.llm.cost import PriceTable
from locoscore.llm.progress import RichProgress
from locoscore.llm.providers import PROVIDERS
from locoscore.report.build import build_reports
from locoscore.report.terminal import judge_table
from locoscore.run.document import read_run_answer


@app.command("judge")
@handle_errors
def judge(
    predictions: PredictionsArg,
    out: Path = typer.Option(..., "--out", help="Output folder (composes with `score`)."),
    dataset: DatasetOpt = None,
    fmt: FormatOpt = None,
    prediction_key: PredictionKeyOpt = None,
    strict: StrictOpt = False,
    protocol: str = typer.Option(
        "rubric", "--protocol", help="rubric (0-100, the seed's) or binary (CORRECT/WRONG)."
    ),
    provider: str = typer.Option("anthropic", "--provider", help=" | ".join(PROVIDERS)),
    model: str | None = typer.Option(
        None, "--model", help="Default: claude-sonnet-4-6 (anthropic), gpt-4o-mini (openai)."
    ),
    base_url: str | None = typer.Option(
        None,
        "--base-url",
        help="Any server speaking the provider's wire format "
        "(default: ANTHROPIC_BASE_URL / OPENAI_BASE_URL, else the provider).",
    ),
    runs: int = typer.Option(10, "--runs", help="Independent judge runs per question."),
    concurrency: int = typer.Option(
        64, "--concurrency", help="Most calls in flight (adapts below it on 429s)."
    ),
    batch: bool = typer.Option(False, "--batch", help="Use the provider's batch API (50%)."),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print calls, tokens and cost to expect; call nothing."
    ),
    max_cost: float | None = typer.Option(
        None, "--max-cost", help="Stop scheduling calls before the estimate passes USD."
    ),
    temperature: float | None = typer.Option(
        None, "--temperature", help="Default: 0.5 (rubric), 0 (binary)."
    ),
    sampling: str = typer.Option(
        "explicit",
        "--sampling",
        help="explicit: send --temperature (stop if the model cannot take it); "
        "default: use the model's own sampling.",
    ),
    api_version: str | None = typer.Option(
        None, "--api-version", help="anthropic-version header (default: chosen per sampling)."
    ),
    include_adversarial: bool = typer.Option(
        False, "--include-adversarial", help="Also judge category 5 (excluded by default)."
    ),
    prompt_template: Path | None = typer.Option(
        None,
        "--prompt-template",
        help="Your own prompt ({question} {gold} {prediction} {category}) for --protocol.",
    ),
    prices: Path | None = typer.Option(
        None, "--prices", help='JSON price table {"model": {"input": USD/Mtok, "output": ...}}.'
    ),
    max_tokens: int = typer.Option(256, "--max-tokens", help="Reply token limit per call."),
    timeout: float = typer.Option(60.0, "--timeout", help="Seconds per call."),
    batch_poll: float = typer.Option(30.0, "--batch-poll", help="Seconds between batch polls."),
    batch_wait: float = typer.Option(
        24 * 3600.0, "--batch-wait", help="Stop waiting for a batch after this many seconds."
    ),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar."),
    user_cache: bool = typer.Option(
        False,
        "--user-cache",
        help="Also read and write the user-level judge cache shared by all folders "
        "(hits are copied into DIR/judge_cache.sqlite).",
    ),
) -> None:
    """Judge every prediction N times; write judgments.jsonl, j_* fields in scores.jsonl and
    a "judge" section in summary.json. Rerunning resumes from DIR/judge_cache.sqlite."""
    if sampling not in ("explicit", "default"):
        raise InputError("expected explicit or default", field="--sampling")
    loaded = load_predictions(
        predictions, fmt, prediction_key=prediction_key, dataset=dataset, strict=strict
    )
    settings = JudgeSettings(
        protocol=protocol,
        provider=provider,
        model=model,
        base_url=base_url,
        runs=runs,
        temperature=temperature,
        use_model_default_sampling=sampling == "default",
        api_version=api_version,
        max_tokens=max_tokens,
        concurrency=concurrency,
        timeout_s=timeout,
        template=load_template(prompt_template, protocol) if prompt_template else None,
        include_adversarial=include_adversarial,
        max_cost_usd=max_cost,
        prices=PriceTable.load(prices),
    )
    _warn_if_self_judging(settings, predictions, out)
    bar = RichProgress(err_console) if progress and not dry_run else None
    result = asyncio.run(
        judge_pass(
            loaded.records,
            settings,
            out,
            batch=batch,
            dry_run=dry_run,
            progress=bar,
            poll_interval_s=batch_poll,
            max_wait_s=batch_wait,
            input_info=loaded.provenance()["input"],
            user_cache=user_cache,
        )
    )
    if user_cache:
        console.print(
            f"user cache: {result.user_cache_hits:,} verdict(s) reused from {user_cache_path()}",
            highlight=False,
        )
    if dry_run:
        _print_estimate(result, batch)
        return
    assert result.run is not None
    if result.run.pending_batch is not None:
        console.print(
            f"batch {result.run.pending_batch} is still running; rerun the same command to "
            f"collect it (nothing is resubmitted)."
        )
        return
    assert result.summary is not None
    _print_table(result.summary)
    short = result.summary["questions_under_min_runs"]
    if short:
        warnings.warn(
            f"{short} question(s) have fewer than {min(5, runs)} successful judge runs; "
            f"rerun the same command to retry the failed calls",
            stacklevel=1,
        )
    # keep the folder's reports in step with the new J (no API call)
    build_reports(out)
    console.print(
        f"wrote {out}/judgments.jsonl, scores.jsonl, summary.json, report.md, report.html, "
        "scores.csv",
        highlight=False,
    )
    if result.run.stop_reason:
        err_console.print(
            f"[red]error:[/] stopped early: {result.run.stop_reason}",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_FAILED)


def _warn_if_self_judging(settings: JudgeSettings, predictions: Path, out: Path) -> None:
    """A model grading its own answers is lenient with them: say so when run.json (beside
    the predictions or in DIR) names the judge's model as the answer model."""
    judge_model = settings.resolve().model
    for folder in dict.fromkeys((predictions.parent, out)):
        answer = read_run_answer(folder)
        if answer is not None and answer.get("model") == judge_model:
            warnings.warn(
                f"self-judging: {judge_model} produced the answers ({folder / 'run.json'}) "
                "and would also judge them; use a different --model for a defensible J",
                stacklevel=1,
            )
            return


def _print_estimate(result: PassResult, batch: bool) -> None:
    estimate = result.estimate
    cost = (
        "unknown (no price for this model)"
        if estimate.cost_usd is None
        else (f"${estimate.cost_usd:.2f}" + (" (batch price)" if batch else ""))
    )
    console.print(f"[bold]dry run[/]: {result.judge.signature}", highlight=False)
    console.print(
        f"calls to make: {estimate.calls:,} (cached: {result.plan.cached:,}, "
        f"graded 0 without a call: {result.plan.short_circuited:,})\n"
        f"estimated tokens: {estimate.input_tokens:,} in, {estimate.output_tokens:,} out\n"
        f"estimated cost: {cost}"
    )


_FORMAT_NOTES = {
    "json_object": " (the server rejected json_schema)",
    "none": " (the server rejected json_schema and json_object; verdicts read from the text)",
}


def _print_table(section: dict[str, Any]) -> None:
    console.print(judge_table(section), highlight=False)
    run_level = section["run_level"]
    if run_level["mean"] is not None:
        std = "" if run_level["std"] is None else f" ± {run_level['std']:.2f}"
        console.print(f"run-level J: {run_level['mean']:.2f}{std} over {section['runs']} runs")
    calls = section["calls"]
    usage = section["usage"]
    cost = usage["estimated_cost_usd"]
    mode = section.get("response_format")
    if mode is not None:
        console.print(f"structured output: {mode}{_FORMAT_NOTES.get(mode, '')}")
    console.print(
        f"calls: {calls['made']} made, {calls['cached']} cached, {calls['failed']} failed; "
        f"tokens {usage['input_tokens']:,} in / {usage['output_tokens']:,} out; "
        f"cost {'n/a' if cost is None else f'${cost:.2f}'}"
    )
