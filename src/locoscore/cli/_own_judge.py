"""`judge` and `report` for a benchmark scored by its own judge (BEAM's rubric items): the
shared judge settings, the benchmark's pass, and a terminal summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from locoscore.benchmarks import Benchmark
from locoscore.cli._app import EXIT_FAILED, console, err_console
from locoscore.errors import InputError
from locoscore.judge.settings import JudgeSettings


def own_protocol(benchmark: Benchmark, protocol: str) -> str:
    if protocol in benchmark.own_judge_protocols:
        return protocol
    if protocol == "rubric":  # the option's default: the benchmark's own rubric scoring
        return benchmark.own_judge_protocols[0]
    known = ", ".join(benchmark.own_judge_protocols)
    raise InputError(
        f"--benchmark {benchmark.name} is scored with --protocol {known}, not {protocol!r}",
        field="--protocol",
    )


def judge_with_benchmark(
    benchmark: Benchmark,
    predictions: Path,
    dataset: Path | None,
    settings: JudgeSettings,
    out: Path,
    *,
    protocol: str,
    dry_run: bool,
    batch: bool,
    user_cache: bool,
    progress: Any = None,
) -> None:
    protocol = own_protocol(benchmark, protocol)
    data = benchmark.load(dataset)
    result = benchmark.judge_folder(
        predictions,
        data,
        settings,
        out,
        protocol=protocol,
        dry_run=dry_run,
        batch=batch,
        user_cache=user_cache,
        progress=progress,
    )
    console.print(f"[bold]judge[/]: {result.signature}", highlight=False, soft_wrap=True)
    passes = result.passes()
    if dry_run:
        cost = [p.estimate.cost_usd for p in passes]
        total = "unknown (no price for this model)" if None in cost else f"${sum(cost):.2f}"
        console.print(
            f"dry run: calls to make: {sum(p.estimate.calls for p in passes):,} "
            f"(cached: {sum(p.plan.cached for p in passes):,}, graded 0 without a call: "
            f"{sum(p.plan.short_circuited for p in passes):,})\nestimated cost: {total}",
            highlight=False,
        )
        return
    section = result.summary["judge"]
    for ability, entry in section["per_ability"].items():
        console.print(f"{ability:<26} n={entry['n']:<4} {100 * entry['mean']:.1f}", highlight=False)
    mean = section["mean_of_abilities"]
    weighted = section["question_weighted"]
    console.print(
        f"mean of abilities {100 * (mean or 0):.1f}; question-weighted {100 * (weighted or 0):.1f}"
        f" over {section['questions']} questions ({section['missing']} without an answer)",
        highlight=False,
    )
    calls = section["calls"]
    cost = section["cost_usd"]
    console.print(
        f"calls: {calls['made']} made, {calls['cached']} cached, {calls['failed']} failed; "
        f"cost {'n/a' if cost is None else f'${cost:.2f}'}",
        highlight=False,
    )
    console.print(
        f"wrote {out}/judgments.jsonl, scores.jsonl, summary.json, report.md, report.html",
        highlight=False,
    )
    if calls["failed"] or section["unscored"]:
        err_console.print(
            f"[red]error:[/] {section['unscored']} question(s) unscored after failed judge "
            "calls; rerun the same command to retry them",
            highlight=False,
        )
        raise typer.Exit(EXIT_FAILED)


def audit_with_benchmark(
    benchmark: Benchmark,
    dataset: Path | None,
    settings: JudgeSettings,
    out: Path,
    *,
    protocol: str,
    dry_run: bool,
) -> None:
    protocol = own_protocol(benchmark, protocol)
    data = benchmark.load(dataset)
    audit = benchmark.audit_folder(data, settings, out, protocol=protocol, dry_run=dry_run)
    console.print(f"[bold]audit[/]: {audit.signature}", highlight=False, soft_wrap=True)
    if dry_run:
        console.print(f"dry run: calls to make: {audit.calls_planned:,}", highlight=False)
        return
    for name, entry in audit.document["sets"].items():
        mean = "n/a" if entry["mean"] is None else f"{100 * entry['mean']:.1f}"
        console.print(f"{name:<10} n={entry['n']:<4} mean score {mean}", highlight=False)
    console.print(f"wrote {out}/audit.json, audit.md, audit.html", highlight=False)
