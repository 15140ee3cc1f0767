"""`locoscore reproduce mem0-table`: a published table, measured here under its settings."""

from __future__ import annotations

from pathlib import Path

import typer

from locoscore.cli._app import EXIT_FAILED, command_group, console, handle_errors
from locoscore.cli._options import DatasetOpt, LimitOpt, LimitPerOpt, SeedOpt
from locoscore.data.sample import sample_spec
from locoscore.report.spend import NO_PRICE

reproduce_app = command_group(
    "reproduce", "Reproduce a published table: run, judge and set it beside the published numbers."
)


def _names(value: str | None) -> list[str] | None:
    return None if value is None else [v.strip() for v in value.split(",") if v.strip()]


@reproduce_app.command("mem0-table")
@handle_errors
def mem0_table(
    out: Path = typer.Option(..., "--out", help="Output folder: one results folder per row."),
    dataset: DatasetOpt = None,
    rows: str | None = typer.Option(
        None,
        "--rows",
        help="Comma-separated rows to run (full-context, rag-dense, rag-bm25, mem0, mem0g, "
        "graphiti, langmem, a-mem); default: every row whose extra is installed.",
    ),
    conversations: str | None = typer.Option(
        None, "--conversations", help="Comma-separated sample ids (default: all ten)."
    ),
    top_k: int = typer.Option(
        10, "--top-k", help="Items the memory systems retrieve (the dense RAG row keeps k=2)."
    ),
    runs: int = typer.Option(10, "--runs", help="Judge runs per question (the paper's: 10)."),
    answer_base_url: str | None = typer.Option(
        None, "--answer-base-url", help="An OpenAI-compatible server for the answer calls."
    ),
    judge_base_url: str | None = typer.Option(
        None, "--judge-base-url", help="An OpenAI-compatible server for the judge calls."
    ),
    system_base_url: str | None = typer.Option(
        None,
        "--system-base-url",
        help="An OpenAI-compatible server for the systems' own calls: the dense row's "
        "embeddings, the memory systems' LLM and embedder (default: OpenAI's API).",
    ),
    concurrency: int = typer.Option(64, "--concurrency", help="Most calls in flight per row."),
    dry_run: bool = typer.Option(
        False,
        "--dry-run",
        help="Print every row's answer and judge calls, tokens and cost; run nothing else "
        "(each row's `run --dry-run`: a system whose ingestion needs a key it lacks is "
        "counted, not ingested).",
    ),
    limit: LimitOpt = None,
    limit_per: LimitPerOpt = None,
    seed: SeedOpt = None,
) -> None:
    """The Mem0 paper's LoCoMo J table (Tables 1-2): full-context, RAG (dense, BM25) and the
    installed memory systems (mem0, mem0g, graphiti, langmem, a-mem) answered by gpt-4o-mini and
    judged by the binary gpt-4o-mini judge (10 runs) on the 1,540 questions without category 5.

    Writes into --out: one results folder per row (rerunning resumes each), then
    reproduce.md and reproduce.json: each row's J per category with its 95 % interval, the
    paper's value and the gap; the paper's rows not run, with why. Self-judged, as in the
    paper."""
    from locoscore.cli._terminal import terminal
    from locoscore.cli.run import _print_estimate
    from locoscore.reproduce.command import (
        ReproduceSettings,
        reproduce,
    )
    from locoscore.reproduce.command import (
        dry_run as plan_dry_run,
    )
    from locoscore.reproduce.table import TABLE_JSON, TABLE_MD

    settings = ReproduceSettings(
        out=out,
        rows=_names(rows),
        dataset=dataset,
        conversations=_names(conversations),
        sample=sample_spec(limit, limit_per, seed),
        top_k=top_k,
        judge_runs=runs,
        answer_base_url=answer_base_url,
        judge_base_url=judge_base_url,
        system_base_url=system_base_url,
        concurrency=concurrency,
        dry_run=dry_run,
    )
    t = terminal()
    if dry_run:
        estimates, skipped = plan_dry_run(settings, t)
        total: float | None = 0.0
        for e in estimates:
            console.print(
                f"{e.row.label} (--system {e.row.system}):", highlight=False, markup=False
            )
            _print_estimate(e.run)
            cost = NO_PRICE if e.judge.cost_usd is None else f"${e.judge.cost_usd:.2f}"
            console.print(
                f"judge calls: {e.judge.calls:,} ({runs} runs per question); estimated "
                f"tokens: {e.judge.input_tokens:,} in, {e.judge.output_tokens:,} out; "
                f"estimated cost: {cost}",
                highlight=False,
            )
            for part in (e.run.get("cost_usd"), e.judge.cost_usd):
                total = None if total is None or part is None else total + part
        for s in skipped:
            console.print(f"{s.published}: not run ({s.why})", highlight=False, markup=False)
        shown = "not known (a row's cost is not estimated)" if total is None else f"${total:.2f}"
        console.print(
            f"estimated answer and judge cost, all rows: {shown}", highlight=False, markup=False
        )
        return
    measured, _ = reproduce(settings, t)
    console.print(f"wrote {out}/{TABLE_MD}, {out}/{TABLE_JSON}", highlight=False, markup=False)
    failed = [m for m in measured if m.missing]
    for m in failed:
        console.print(f"{m.row.label}: not measured: {m.missing}", highlight=False, markup=False)
    if failed:
        raise typer.Exit(EXIT_FAILED)
