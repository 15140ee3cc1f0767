"""`locoscore audit`: how often a judge accepts wrong answers and rejects the gold."""

from __future__ import annotations

from pathlib import Path

import typer

from locoscore.benchmarks import DEFAULT_BENCHMARK, get_benchmark
from locoscore.benchmarks.commands import DEFAULT_ACCEPT_THRESHOLD, AuditCall
from locoscore.cli._app import (
    EXIT_FAILED,
    app,
    handle_errors,
)
from locoscore.cli._judge_options import (
    DEFAULT_MAX_ATTEMPTS,
    ApiVersionOpt,
    BaseUrlOpt,
    BatchOpt,
    BatchPollOpt,
    BatchWaitOpt,
    ConcurrencyOpt,
    DryRunOpt,
    MaxAttemptsOpt,
    MaxCostOpt,
    MaxTokensOpt,
    ModelOpt,
    PricesOpt,
    ProgressOpt,
    PromptTemplateOpt,
    ProtocolOpt,
    ProviderOpt,
    RunsOpt,
    SamplingOpt,
    TemperatureOpt,
    TimeoutOpt,
    UserCacheOpt,
    judge_settings,
)
from locoscore.cli._options import (
    BenchmarkOpt,
    DatasetOpt,
    FormatOpt,
    LimitOpt,
    LimitPerOpt,
    ReplaceOpt,
    SeedOpt,
)
from locoscore.cli._terminal import terminal
from locoscore.data.sample import sample_spec
from locoscore.errors import InputError
from locoscore.results.manifest import bound
from locoscore.run.document import read_run_sample


@app.command("audit")
@handle_errors
def audit(
    out: Path = typer.Option(..., "--out", help="Output folder (audit.md/html/json, cache)."),
    dataset: DatasetOpt = None,
    probes: list[Path] | None = typer.Option(
        None,
        "--probes",
        help="A probe set in the MemOS format (repeatable; its name is the file stem). "
        "Default: the two fetched by `locoscore dataset fetch probes`.",
    ),
    predictions: Path | None = typer.Option(
        None,
        "--predictions",
        help="Your system's predictions (a file, see --format, or a results folder), "
        "judged beside the probes.",
    ),
    fmt: FormatOpt = None,
    accept_threshold: float = typer.Option(
        DEFAULT_ACCEPT_THRESHOLD,
        "--accept-threshold",
        help="rubric: a run accepts an answer when its score is at least this (binary: CORRECT).",
    ),
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
    prompt_template: PromptTemplateOpt = None,
    prices: PricesOpt = None,
    max_tokens: MaxTokensOpt = 256,
    timeout: TimeoutOpt = 60.0,
    max_attempts: MaxAttemptsOpt = DEFAULT_MAX_ATTEMPTS,
    batch_poll: BatchPollOpt = 30.0,
    batch_wait: BatchWaitOpt = 24 * 3600.0,
    progress: ProgressOpt = True,
    user_cache: UserCacheOpt = False,
    benchmark: BenchmarkOpt = DEFAULT_BENCHMARK,
    limit: LimitOpt = None,
    limit_per: LimitPerOpt = None,
    seed: SeedOpt = None,
    replace: ReplaceOpt = False,
) -> None:
    """Audit the judge: the gold as the answer (should be accepted) and deliberately wrong
    answers (should be rejected), judged exactly as `locoscore judge` would. Rerunning
    resumes from DIR/judge_cache.sqlite.

    Writes into DIR: audit.json, audit.md, audit.html, judge_cache.sqlite; in a results
    folder also report.md, report.html, scores.csv and summary.json (rebuilt with the
    audit); with --user-cache also the user-level judge_cache.sqlite. A dry run writes
    nothing."""
    bench = get_benchmark(benchmark)
    bench.require("audit")
    bench.check_audit_inputs(predictions, probes)
    if not 0 < accept_threshold <= 100:
        raise InputError("must be in (0, 100]", field="--accept-threshold")
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a folder", file=str(out), field="--out")
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
        max_attempts=max_attempts,
        signs_exclusion=bool(bench.excluded_from_overall),
    )
    settings.resolve()  # a bad judge configuration fails before any file is read
    call = AuditCall(
        out, dataset, probes, predictions, fmt, accept_threshold, settings, dry_run, batch,
        batch_poll, batch_wait, progress, user_cache, sample_spec(limit, limit_per, seed), replace,
        None if predictions is None else read_run_sample(predictions, bench.run_fingerprint),
    )  # fmt: skip
    with bound(out, "audit") as binding:
        binding.read("dataset", dataset)
        binding.read("predictions", predictions)
        binding.read("prompt template", prompt_template)
        for index, probe in enumerate(probes or ()):
            binding.read(f"probes {index + 1}", probe)
        failed = bench.audit_command(call, terminal())
    if failed:
        raise typer.Exit(EXIT_FAILED)
