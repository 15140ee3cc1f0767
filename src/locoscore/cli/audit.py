"""`locoscore audit`: how often a judge accepts wrong answers and rejects the gold."""

from __future__ import annotations

from pathlib import Path

import typer

from locoscore.benchmarks import DEFAULT_BENCHMARK, get_benchmark
from locoscore.benchmarks.calls import DEFAULT_ACCEPT_THRESHOLD, AuditCall
from locoscore.cli._app import (
    EXIT_FAILED,
    app,
    handle_errors,
)
from locoscore.cli._judge_options import (
    JUDGE_DEFAULTS,
    BaseUrlOpt,
    JudgeFlags,
    with_judge_flags,
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
@with_judge_flags
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
    judging: JudgeFlags = JUDGE_DEFAULTS,
    base_url: BaseUrlOpt = None,
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
    settings = judging.settings(
        base_url=base_url, signs_exclusion=bool(bench.excluded_from_overall)
    )
    settings.resolve()  # a bad judge configuration fails before any file is read
    call = AuditCall(
        out=out, dataset=dataset, probes=probes, predictions=predictions, fmt=fmt,
        accept_threshold=accept_threshold, settings=settings,
        spec=sample_spec(limit, limit_per, seed), replace=replace,
        ran=None if predictions is None else read_run_sample(predictions, bench.run_fingerprint),
        **judging.how_the_pass_runs(),
    )  # fmt: skip
    with bound(out, "audit") as binding:
        binding.read("dataset", dataset)
        binding.read("predictions", predictions)
        binding.read("prompt template", judging.prompt_template)
        for index, probe in enumerate(probes or ()):
            binding.read(f"probes {index + 1}", probe)
        failed = bench.audit_command(call, terminal())
    if failed:
        raise typer.Exit(EXIT_FAILED)
