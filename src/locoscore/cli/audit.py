"""`locoscore audit`: how often a judge accepts wrong answers and rejects the gold."""

from __future__ import annotations

import warnings
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from locoscore.benchmarks import Benchmark, get_benchmark
from locoscore.benchmarks.locomo_probe_sets import gold_probe_set, predictions_set, probe_file_set
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
    print_benchmark_outcome,
    print_estimate,
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
from locoscore.data.dataset import load_dataset
from locoscore.data.probes import cached_probe_paths
from locoscore.data.sample import SampleSpec, judged_sample, sample_spec
from locoscore.errors import InputError
from locoscore.judge.audit import (
    DEFAULT_ACCEPT_THRESHOLD,
    ProbeSet,
    calls_per_set,
    run_audit,
    sample_sets,
)
from locoscore.judge.cache import user_cache_path
from locoscore.judge.settings import JudgeSettings
from locoscore.llm.endpoint import through_sentence
from locoscore.llm.progress import progress_for
from locoscore.report.spend import judge_calls_line
from locoscore.results.identity import claim_folder
from locoscore.results.layout import AUDIT_HTML, AUDIT_JSON, AUDIT_MD, SCORES, SUMMARY
from locoscore.run.document import read_run_sample
from locoscore.run.store import forget_run


def _print_sets(document: dict[str, object]) -> None:
    table = Table(title="judge audit: % of answers accepted")
    for name in ("probe set", "should", "n", "accepted", "95 % CI", "run ±", "recorded", "ref."):
        table.add_column(
            name, justify="left" if name in ("probe set", "should") else "right", overflow="fold"
        )
    sets = document["probe_sets"]
    assert isinstance(sets, list)
    for s in sets:
        cell = s["acceptance"]["overall"]
        ci = cell["ci95"]
        recorded = (s.get("recorded") or {}).get("overall") or {}
        reference = s.get("reference") or {}
        table.add_row(
            s["name"],
            s["expect"] or "-",
            str(cell["n"]),
            "-" if cell["rate"] is None else f"{cell['rate']:.1f}",
            "-" if ci["low"] is None else f"[{ci['low']:.1f}, {ci['high']:.1f}]",
            "-" if cell["run_level"]["std"] is None else f"{cell['run_level']['std']:.2f}",
            "-" if recorded.get("mean") is None else f"{recorded['mean']:.2f}",
            "-" if reference.get("overall") is None else f"{reference['overall']:.2f}",
        )
    console.print(table)


def _audit_with_benchmark_sets(
    bench: Benchmark,
    dataset: Path | None,
    settings: JudgeSettings,
    out: Path,
    dry_run: bool,
    batch: bool,
    user_cache: bool,
    spec: SampleSpec | None,
) -> None:
    data = bench.load(dataset)
    result, document = run_pass(
        bench.audit(
            data, settings, out, dry_run=dry_run, batch=batch, user_cache=user_cache, sample=spec
        )
    )
    if document is not None and (drawn := document.get("sample")):
        console.print(
            f"smoke test: audited a sample of {drawn['size']:,} of {drawn['population']:,} "
            f"questions ({drawn['signature']}) in every probe set",
            highlight=False,
        )
    done = not dry_run and document is not None
    lines = bench.audit_lines(document, out) if done and document is not None else None
    print_benchmark_outcome(lines, result, None if done else bench.dry_run_lines(result), batch)


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
    batch_poll: BatchPollOpt = 30.0,
    batch_wait: BatchWaitOpt = 24 * 3600.0,
    progress: ProgressOpt = True,
    user_cache: UserCacheOpt = False,
    benchmark: BenchmarkOpt = "locomo",
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
    # imported here, not at the top: `locoscore --help` stays free of NumPy and NLTK
    from locoscore.judge.audit_stats import placement_sentence
    from locoscore.report.audit_report import audit_document, write_audit
    from locoscore.report.build import build_reports

    bench = get_benchmark(benchmark)
    bench.require("audit")
    if bench.own_audit:
        # its probe sets come from its own data: a file of answers or probes would be
        # silently left out of the audit, so say so before anything is read or written
        for given, option in ((predictions, "--predictions"), (probes, "--probes")):
            if given:
                raise InputError(
                    f"--benchmark {bench.name} audits its own probe sets; it takes no {option}",
                    field=option,
                )
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
        signs_exclusion=bool(bench.excluded_from_overall),
    )
    settings.resolve()  # a bad judge configuration fails before any file is read
    spec = sample_spec(limit, limit_per, seed)
    if bench.own_audit:
        _audit_with_benchmark_sets(bench, dataset, settings, out, dry_run, batch, user_cache, spec)
        return
    # a run's predictions made with --limit: every set cut to the run's own sample
    ran = None if predictions is None else read_run_sample(predictions, bench.run_fingerprint)
    request = spec if predictions is None else judged_sample(spec, ran)
    ds = load_dataset(dataset)
    sets: list[ProbeSet] = [gold_probe_set(ds)]
    sets += [probe_file_set(path, ds) for path in (probes or cached_probe_paths())]
    if predictions is not None:
        own = predictions_set(predictions, ds, fmt)
        assert own.identity is not None
        dropped = claim_folder(
            out, own.identity, replace=replace, dry_run=dry_run, forget_run=forget_run
        )
        report_dropped(dropped, out)
        sets.append(own)
    sample = None
    if request is not None:
        sets, sample = sample_sets(sets, request, bench.draw_sample)
        console.print(
            f"smoke test: auditing {sample.describe()} ({sample.signature}) of every probe set",
            highlight=False,
        )
    bar = progress_for(err_console, progress and not dry_run, "auditing", "judgments")
    result = run_pass(
        run_audit(
            sets,
            settings,
            out,
            batch=batch,
            dry_run=dry_run,
            progress=bar,
            poll_interval_s=batch_poll,
            max_wait_s=batch_wait,
            user_cache=user_cache,
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
        per_set = ", ".join(f"{name} {n:,}" for name, n in calls_per_set(sets, result).items())
        console.print(f"calls per probe set: {per_set}", highlight=False)
        return
    assert result.run is not None
    if result.run.pending_batch is not None:
        console.print(
            f"batch {result.run.pending_batch} is still running; rerun the same command to "
            "collect it (nothing is resubmitted)."
        )
        return
    document = audit_document(sets, result, ds, accept_threshold, sample)
    write_audit(out, document)
    if (out / SCORES).is_file() and (out / SUMMARY).is_file():
        build_reports(out)  # a results folder: its report shows the audit next to J
    _print_sets(document)
    if document.get("placement"):
        console.print(placement_sentence(document["placement"]), highlight=False)
    console.print(f"[bold]{document['summary_line']}[/]", highlight=False)
    console.print(judge_calls_line(document["calls"], document["usage"]), highlight=False)
    judge = document["judge"]
    through = through_sentence("judged", judge["endpoint"], judge["served"]["fake"])
    if through is not None:
        console.print(escape(through), highlight=False, soft_wrap=True)
    for warning in document["warnings"]:
        warnings.warn(warning, stacklevel=1)
    console.print(f"wrote {out}/{AUDIT_MD}, {AUDIT_HTML}, {AUDIT_JSON}", highlight=False)
    if result.run.stop_reason:
        err_console.print(
            f"[red]error:[/] stopped early: {result.run.stop_reason}",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_FAILED)
