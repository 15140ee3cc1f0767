"""`locoscore judge`: the LLM judge over a predictions file, N runs per question."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from locoscore.benchmarks import Benchmark, get_benchmark
from locoscore.benchmarks.base import parse_type_templates
from locoscore.cli._app import (
    EXIT_FAILED,
    app,
    console,
    err_console,
    handle_errors,
    report_dropped,
)
from locoscore.cli._interrupt import run_pass
from locoscore.cli._judge_options import (
    ApiVersionOpt,
    BaseUrlOpt,
    BatchOpt,
    BatchPollOpt,
    BatchWaitOpt,
    ConcurrencyOpt,
    DryRunOpt,
    MaxCostOpt,
    MaxTokensOpt,
    MaxUnscoredOpt,
    ModelOpt,
    PricesOpt,
    ProgressOpt,
    PromptTemplateOpt,
    ProtocolOpt,
    ProviderOpt,
    ResponseFormatOpt,
    RunsOpt,
    SamplingOpt,
    TemperatureOpt,
    TimeoutOpt,
    UserCacheOpt,
    judge_settings,
    print_benchmark_outcome,
    print_estimate,
    type_template_help,
)
from locoscore.cli._options import (
    BenchmarkOpt,
    DatasetOpt,
    ErrataOpt,
    FormatOpt,
    LimitOpt,
    LimitPerOpt,
    PredictionKeyOpt,
    PredictionsArg,
    ReplaceOpt,
    SeedOpt,
    ShardOpt,
    StrictOpt,
)
from locoscore.data.errata import errata_for
from locoscore.data.load import load_predictions
from locoscore.data.sample import QuestionSample, SampleSpec, judged_sample, sample_spec
from locoscore.data.shard import Shard
from locoscore.errors import InputError
from locoscore.judge.api import judge_pass, judge_sample
from locoscore.judge.cache import user_cache_path
from locoscore.judge.folder import DEFAULT_MAX_UNSCORED, unscored_problem
from locoscore.judge.settings import JudgeSettings
from locoscore.judge.shard import benchmark_shard_sample, records_shard_sample, run_shard_sample
from locoscore.llm.endpoint import through_sentence
from locoscore.llm.progress import progress_for
from locoscore.report.spend import concurrency_phrase, judge_calls_line
from locoscore.results.identity import InputIdentity, claim_folder
from locoscore.results.layout import JUDGMENTS, REPORT_FILES, RUN_JSON, SCORES, SUMMARY
from locoscore.run.document import read_run_answer, read_run_sample, read_run_shard
from locoscore.run.store import forget_run

TYPE_TEMPLATE_HELP = type_template_help()


@app.command("judge")
@handle_errors
def judge(
    predictions: PredictionsArg,
    out: Path = typer.Option(..., "--out", help="Output folder (composes with `score`)."),
    dataset: DatasetOpt = None,
    fmt: FormatOpt = None,
    prediction_key: PredictionKeyOpt = None,
    strict: StrictOpt = False,
    protocol: ProtocolOpt = "rubric",
    provider: ProviderOpt = "anthropic",
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    runs: RunsOpt = 10,
    concurrency: ConcurrencyOpt = 64,
    batch: BatchOpt = False,
    dry_run: DryRunOpt = False,
    max_cost: MaxCostOpt = None,
    temperature: TemperatureOpt = None,
    sampling: SamplingOpt = "explicit",
    api_version: ApiVersionOpt = None,
    include_adversarial: bool = typer.Option(
        False, "--include-adversarial", help="Also judge category 5 (excluded by default)."
    ),
    prompt_template: PromptTemplateOpt = None,
    prices: PricesOpt = None,
    max_tokens: MaxTokensOpt = 256,
    timeout: TimeoutOpt = 60.0,
    batch_poll: BatchPollOpt = 30.0,
    batch_wait: BatchWaitOpt = 24 * 3600.0,
    progress: ProgressOpt = True,
    user_cache: UserCacheOpt = False,
    errata: ErrataOpt = None,
    response_format: ResponseFormatOpt = None,
    max_unscored: MaxUnscoredOpt = DEFAULT_MAX_UNSCORED,
    limit: LimitOpt = None,
    limit_per: LimitPerOpt = None,
    seed: SeedOpt = None,
    benchmark: BenchmarkOpt = "locomo",
    type_template: list[str] = typer.Option(
        [],
        "--type-template",
        help=TYPE_TEMPLATE_HELP,
    ),
    replace: ReplaceOpt = False,
    shard: ShardOpt = None,
) -> None:
    """Judge every prediction N times; rerunning resumes from DIR/judge_cache.sqlite.

    Writes into DIR: judgments.jsonl, judge_cache.sqlite, the j_* fields of scores.jsonl, the
    "judge" section of summary.json, report.md, report.html, scores.csv; with --user-cache
    also the user-level judge_cache.sqlite. A dry run writes nothing."""
    # imported here, not at the top: `locoscore --help` stays free of NumPy and NLTK
    from locoscore.report.build import build_reports
    from locoscore.report.terminal import verified_gold_line

    bench = get_benchmark(benchmark)
    bench.require("judge")
    settings = judge_settings(
        protocol=protocol,
        provider=provider,
        model=model,
        base_url=base_url,
        runs=runs,
        concurrency=concurrency,
        max_cost=max_cost,
        temperature=temperature,
        sampling=sampling,
        api_version=api_version,
        prompt_template=prompt_template,
        prices=prices,
        max_tokens=max_tokens,
        timeout=timeout,
        signs_exclusion=bool(bench.excluded_from_overall),
        include_adversarial=include_adversarial,
        response_format=response_format,
    )
    if not 0.0 <= max_unscored <= 1.0:
        raise InputError(f"{max_unscored:g}: expected a share 0..1", field="--max-unscored")
    # a run's own predictions made with --limit: exactly the run's sample, as it drew it
    ran = read_run_sample(predictions, bench.run_fingerprint)
    spec = sample_spec(limit, limit_per, seed)
    request = judged_sample(spec, ran)
    wanted = Shard.parse(shard)
    if (ran_shard := read_run_shard(predictions, bench.run_fingerprint)) is not None:
        request = run_shard_sample(ran_shard, wanted, ran, spec)
    elif wanted is not None and bench.own_judge:
        request = benchmark_shard_sample(bench, bench.load(dataset), request, wanted)
    if bench.own_judge:
        _judge_with_benchmark_rules(
            bench, predictions, dataset, settings, out, type_template, dry_run, batch, user_cache,
            request, replace, max_unscored,
        )  # fmt: skip
        return
    loaded = load_predictions(
        predictions, fmt, prediction_key=prediction_key, dataset=dataset, strict=strict
    )
    sample = (
        None
        if request is None
        else judge_sample(loaded.records, request, include_adversarial, bench)
    )
    if wanted is not None and ran_shard is None:  # after the sample: its shard I
        sample = records_shard_sample(
            bench, loaded.dataset, loaded.records, include_adversarial, sample, wanted
        )
    if sample is not None:
        console.print(
            f"smoke test: judging {sample.describe()} ({sample.signature}); J is a subset",
            highlight=False,
        )
    gold_errata = errata_for(errata, loaded.dataset)  # a bad list fails before any call
    _warn_if_self_judging(settings, predictions, out)
    ours = loaded.identity()
    dropped = claim_folder(out, ours, replace=replace, dry_run=dry_run, forget_run=forget_run)
    report_dropped(dropped, out)
    bar = progress_for(err_console, progress and not dry_run, "judging", "judgments")
    result = run_pass(
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
            sample=sample,
        ),
        bar,
    )
    if user_cache:
        console.print(
            f"user cache: {result.user_cache_hits:,} verdict(s) reused from {user_cache_path()}",
            highlight=False,
        )
    if dry_run:
        print_estimate(result, batch, sample)
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
    for warning in result.summary.get("warnings") or []:
        warnings.warn(warning, stacklevel=1)
    short = result.summary["questions_under_min_runs"]
    if short:
        warnings.warn(
            f"{short} question(s) have fewer than {min(5, runs)} successful judge runs; "
            f"rerun the same command to retry the failed calls",
            stacklevel=1,
        )
    # keep the folder's reports in step with the new J (no API call)
    built = build_reports(out, errata=gold_errata)
    if (line := verified_gold_line(built.analysis)) is not None:
        console.print(line, highlight=False)
    console.print(
        f"wrote {out}/{', '.join((JUDGMENTS, SCORES, SUMMARY, *REPORT_FILES))}",
        highlight=False,
    )
    if result.run.stop_reason:
        err_console.print(
            f"[red]error:[/] stopped early: {result.run.stop_reason}",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_FAILED)
    if (problem := unscored_problem(result.run.rows, max_unscored)) is not None:
        err_console.print(f"[red]error:[/] {escape(problem)}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_FAILED)


def _judge_with_benchmark_rules(
    bench: Benchmark,
    answers: Path,
    dataset: Path | None,
    settings: JudgeSettings,
    out: Path,
    type_templates: list[str],
    dry_run: bool,
    batch: bool,
    user_cache: bool,
    sample: SampleSpec | QuestionSample | None,
    replace: bool,
    max_unscored: float,
) -> None:
    """A benchmark's judge through the shared fold (`judge.folder`): its section carries an
    `error` when the gate fails (too many runs without a verdict, a pass stopped early), and
    the command then exits 1 after the outputs are written, as LoCoMo's does."""
    data = bench.load(dataset)

    def claim(ours: InputIdentity) -> None:
        """The folder guard, called by the benchmark's pass once it has read the answers."""
        dropped = claim_folder(out, ours, replace=replace, dry_run=dry_run, forget_run=forget_run)
        report_dropped(dropped, out)

    result, section = run_pass(
        bench.judge(
            data,
            answers,
            settings,
            out,
            type_templates=parse_type_templates(type_templates),
            dry_run=dry_run,
            batch=batch,
            user_cache=user_cache,
            sample=sample,  # a spec each benchmark draws as `run` does, or the run's sample
            claim=claim,
            max_unscored=max_unscored,
        )
    )
    if section is not None and (drawn := section.get("sample")):
        console.print(
            f"smoke test: judged a sample of {drawn['size']:,} of {drawn['population']:,} "
            f"questions ({drawn['signature']}); J is a subset",
            highlight=False,
        )
    done = not dry_run and section is not None
    lines = bench.judge_lines(section, out) if done and section is not None else None
    print_benchmark_outcome(lines, result, None if done else bench.dry_run_lines(result), batch)
    if section is not None and section.get("error"):
        err_console.print(
            f"[red]error:[/] {escape(section['error'])}", highlight=False, soft_wrap=True
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
                f"self-judging: {judge_model} produced the answers ({folder / RUN_JSON}) "
                "and would also judge them; use a different --model for a defensible J",
                stacklevel=1,
            )
            return


_FORMAT_NOTES = {
    "json_object": " (the server rejected json_schema)",
    "none": " (the server rejected json_schema and json_object; verdicts read from the text)",
}


def _print_table(section: dict[str, Any]) -> None:
    from locoscore.report.terminal import judge_table, print_signatures

    console.print(judge_table(section), highlight=False)
    print_signatures(console, [section["signature"]])
    run_level = section["run_level"]
    if run_level["mean"] is not None:
        std = "" if run_level["std"] is None else f" ± {run_level['std']:.2f}"
        console.print(f"run-level J: {run_level['mean']:.2f}{std} over {section['runs']} runs")
    mode = section.get("response_format")
    through = through_sentence("judged", section.get("endpoint"), section["served"]["fake"])
    if through is not None:
        console.print(escape(through), highlight=False, soft_wrap=True)
    if mode is not None:
        console.print(f"structured output: {mode}{_FORMAT_NOTES.get(mode, '')}")
    concurrency = section.get("concurrency")
    if concurrency is not None:
        console.print(
            f"concurrency: {concurrency_phrase(concurrency)}", highlight=False, soft_wrap=True
        )
    console.print(judge_calls_line(section["calls"], section["usage"]), highlight=False)
