"""`locoscore run`: take a memory system through a benchmark and score what it answers."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from locoscore.benchmarks import DEFAULT_BENCHMARK, get_benchmark
from locoscore.cli._app import (
    EXIT_FAILED,
    app,
    console,
    err_console,
    handle_errors,
    print_signatures,
    report_dropped,
)
from locoscore.cli._interrupt import run_pass
from locoscore.cli._options import (
    BenchmarkOpt,
    DatasetOpt,
    ErrataOpt,
    LimitOpt,
    LimitPerOpt,
    ReplaceOpt,
    SeedOpt,
    ShardOpt,
    base_urls_option,
    endpoint_pool,
    left_out_types,
    pool_option,
)
from locoscore.data.sample import sample_spec
from locoscore.data.shard import Shard
from locoscore.errors import InputError
from locoscore.llm.cost import PriceTable
from locoscore.llm.endpoint import through_sentence
from locoscore.llm.progress import progress_for
from locoscore.report.spend import NO_PRICE, answer_calls_phrase, concurrency_phrase
from locoscore.results.manifest import bound
from locoscore.run.answerer import ANSWER_PROVIDERS, AnswerSettings
from locoscore.run.pipeline import execute_run, resolve_run
from locoscore.run.settings import ResolvedRun, RunSettings
from locoscore.systems.options import parse_option_pairs
from locoscore.systems.registry import system_names


def _conversation_list(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [c.strip() for c in value.split(",") if c.strip()] or None


def _run_help(summary: str) -> str:
    """The command's help: what every run writes, then each benchmark's own files (from the
    registry, so a benchmark never reads a promise of files it does not write)."""
    from locoscore.benchmarks import BENCHMARKS, Benchmark

    own = "; ".join(f"{b.name}: {', '.join(b.run_files)}" for b in BENCHMARKS.values())
    generic = ", ".join(Benchmark.run_files)
    return (
        f"{summary}\n\nWrites into DIR: predictions.jsonl, run.json, run_state.sqlite, "
        f"system_state/ (the system's own files), and the benchmark's scores ({own}; your own "
        f"benchmark: {generic}). A dry run writes only what ingestion itself "
        "stores (system_state/)."
    )


def _protocol_help() -> str:
    """The run profiles each benchmark takes (from the registry)."""
    from locoscore.benchmarks import BENCHMARKS

    takes = "; ".join(
        f"{b.name}: {', '.join(b.run_protocols)}" for b in BENCHMARKS.values() if b.run_protocols
    )
    return f"default: the benchmark's own; {takes or 'none other built in'}"


@app.command(
    "run",
    help=_run_help(
        "Ingest each conversation into the system, ask every question, answer with a fixed "
        "prompt, and score the answers. Rerunning the same command resumes."
    ),
)
@handle_errors
def run(
    system: str = typer.Option(
        ...,
        "--system",
        help=f"The memory system: {', '.join(system_names())}, or python:module:Class.",
    ),
    out: Path = typer.Option(..., "--out", help="Output folder (resumable)."),
    dataset: DatasetOpt = None,
    system_option: list[str] = typer.Option(
        [], "--system-option", help="KEY=VALUE passed to the system (repeatable)."
    ),
    conversations: str | None = typer.Option(
        None, "--conversations", help="Comma-separated sample ids, e.g. conv-26,conv-30."
    ),
    exclude_adversarial: bool = typer.Option(
        False,
        "--exclude-adversarial",
        help=f"Skip the question types left out of the overall ({left_out_types()}); "
        "asked by default, as a benchmark's official score may count them.",
    ),
    answer_provider: str = typer.Option(
        "openai", "--answer-provider", help=" | ".join(ANSWER_PROVIDERS)
    ),
    answer_model: str | None = typer.Option(
        None,
        "--answer-model",
        help="Default: gpt-4o-mini (openai, the Mem0 paper's), claude-opus-4-6 (anthropic).",
    ),
    answer_base_url: list[str] = base_urls_option(
        "--answer-base-url", "", " (each call to the one with a free slot)"
    ),
    answer_pool: Path | None = pool_option("--answer-pool", "answer"),
    answer_context_window: int | None = typer.Option(
        None,
        "--answer-context-window",
        help="The answer model's context window in tokens (default: what the server says).",
    ),
    answer_prompt: Path | None = typer.Option(
        None, "--answer-prompt", help="Your answer prompt, with {question} and {context}."
    ),
    top_k: int = typer.Option(10, "--top-k", help="Items retrieved per question."),
    context_budget: int | None = typer.Option(
        None, "--context-budget", help="Most cl100k tokens of retrieved context in the prompt."
    ),
    concurrency: int = typer.Option(
        64, "--concurrency", help="Most questions (and answer calls) in flight."
    ),
    timeout: float = typer.Option(
        60.0, "--timeout", help="Seconds an answer call may take (the HTTP call's limit)."
    ),
    max_attempts: int = typer.Option(
        6,
        "--max-attempts",
        min=1,
        help="Attempts per answer call for retryable errors (5xx, timeouts, refused "
        "connections), with exponential backoff from 0.5 s.",
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Ingest and retrieve, then print answer calls, tokens and cost."
    ),
    max_cost: float | None = typer.Option(
        None, "--max-cost", help="Stop answer calls before their estimated cost passes USD."
    ),
    prices: Path | None = typer.Option(
        None, "--prices", help='JSON price table {"model": {"input": USD/Mtok, "output": ...}}.'
    ),
    prompt_cache: bool = typer.Option(
        True,
        "--prompt-cache/--no-prompt-cache",
        help="Mark the prompt's shared prefix for the provider's cache (Anthropic); on by default.",
    ),
    skip_probe: bool = typer.Option(
        False, "--skip-probe", help="Start even if the quick integration probe fails."
    ),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar."),
    errata: ErrataOpt = None,
    limit: LimitOpt = None,
    limit_per: LimitPerOpt = None,
    seed: SeedOpt = None,
    benchmark: BenchmarkOpt = DEFAULT_BENCHMARK,
    protocol: str | None = typer.Option(
        None, "--protocol", help=f"The benchmark's run profile ({_protocol_help()})."
    ),
    replace: ReplaceOpt = False,
    shard: ShardOpt = None,
    executor: str = typer.Option(
        "local", "--executor", help="local | ray: run --shards N shards as Ray tasks, then merge."
    ),
    shards: int | None = typer.Option(
        None, "--shards", help="With --executor ray: how many shards (DIR/shards/shard-I)."
    ),
    ray_address: str | None = typer.Option(
        None, "--ray-address", help="An existing Ray cluster (default: a local Ray)."
    ),
) -> None:
    """Ingest, ask, answer and score (the help text is `_run_help`, built from the registry)."""
    # imported here, not at the top: `locoscore --help` stays free of NumPy and NLTK
    from locoscore.cli._terminal import terminal
    from locoscore.run.measures import failure_kinds
    from locoscore.run.outputs import write_run_outputs

    settings = RunSettings(
        system=system,
        out=out,
        system_options=parse_option_pairs(system_option),
        dataset=dataset,
        conversations=_conversation_list(conversations),
        include_adversarial=not exclude_adversarial,
        top_k=top_k,
        context_budget=context_budget,
        concurrency=concurrency,
        answer=AnswerSettings(
            provider=answer_provider,
            model=answer_model,
            base_url=answer_base_url[0] if len(answer_base_url) == 1 else None,
            pool=endpoint_pool(answer_base_url, answer_pool, "--answer-base-url", "--answer-pool"),
            max_cost_usd=max_cost,
            prices=PriceTable.load(prices),
            context_window=answer_context_window,
            prompt_cache=prompt_cache,
            timeout_s=timeout,
            max_attempts=max_attempts,
        ),
        answer_prompt=answer_prompt,
        dry_run=dry_run,
        skip_probe=skip_probe,
        errata=errata,
        sample=sample_spec(limit, limit_per, seed),
        benchmark=benchmark,
        replace=replace,
        shard=Shard.parse(shard),
        protocol=protocol,
    )
    if executor not in ("local", "ray"):
        raise InputError(f"{executor}: expected local or ray", field="--executor")
    if executor == "ray" or shards is not None:
        if executor != "ray":
            raise InputError("needs --executor ray (or use --shard I/N)", field="--shards")
        if dry_run and shards is not None:
            _dry_run_shards(settings, shards)
            return
        _run_on_ray(settings, shards, ray_address, progress)
        return
    resolved = resolve_run(settings)
    print_signatures([resolved.signature])
    if resolved.sample is not None:
        console.print(f"smoke test on {resolved.sample.describe()}: every number is a subset")
    bar = progress_for(err_console, progress and not dry_run, "answering", "questions")
    result = run_pass(execute_run(resolved, progress=bar), bar)
    if dry_run:
        _print_estimate(result.dry_run_estimate or {})
        return
    bench = resolved.benchmark
    with bound(out, "run") as binding:
        binding.read("dataset", dataset)
        binding.read("answer prompt", answer_prompt)
        binding.read("errata", errata)
        summary = write_run_outputs(result, out)
        report_dropped(result.dropped, out)
        bench.build_run_reports(out, errata=resolved.errata)  # its reports, beside the scores
    bench.print_run_scores(summary, terminal())
    if result.signature != resolved.signature:  # what the server said it served, now known
        print_signatures([result.signature])
    calls = summary["run"]["answer_calls"]
    if not (resolved.answer.is_extractive or resolved.system.answers_itself):
        cost = calls["cost_usd"]
        console.print(
            f"answer {answer_calls_phrase(calls)}; cost "
            + ("n/a" if cost is None else f"${cost:.4f}")
            + (f"; input tokens{split}" if (split := _cache_split(calls)) else ""),
            highlight=False,
        )
        if calls.get("concurrency") and calls["made"]:
            console.print(
                f"answer concurrency: {concurrency_phrase(calls['concurrency'])}",
                highlight=False,
                soft_wrap=True,
            )
        endpoint = resolved.answer.endpoint
        through = through_sentence(
            "answered", None if endpoint is None else endpoint.to_json(), result.served.fake
        )
        if through is not None:
            console.print(escape(through), highlight=False, soft_wrap=True)
    written = ", ".join(summary.get("_written", ()))
    console.print(f"wrote {escape(str(out))}/{written}", highlight=False)
    if result.failed:
        by_kind = failure_kinds(result.records)
        kinds = ", ".join(f"{kind} {n}" for kind, n in by_kind.most_common())
        err_console.print(
            f"[red]error:[/] {result.failed} question(s) failed ({escape(kinds)}; recorded with "
            f"their error); {escape(failure_advice(by_kind, resolved))}",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_FAILED)


def _cache_split(tokens: dict[str, Any]) -> str:
    """ " (of which N uncached, N read from the prompt cache, N written to it)", or ""."""
    read, written = tokens.get("cache_read_tokens") or 0, tokens.get("cache_write_tokens") or 0
    if not (read or written):
        return ""
    return (
        f" (uncached {tokens.get('uncached_input_tokens', 0):,}, cache read {read:,}, "
        f"cache write {written:,})"
    )


def failure_advice(by_kind: Counter[str], resolved: ResolvedRun) -> str:
    """What would help: a rerun retries what may pass next time, never a prompt that does
    not fit the window (the same prompt overflows the same way)."""
    from locoscore.run.context_fit import OVERFLOW

    overflows = by_kind.get(OVERFLOW, 0)
    rerun = "rerun the same command to retry only those"
    if not overflows:
        return rerun
    window = resolved.answer.context_window
    held = f"the {window:,}-token context window" if window else "the model's context window"
    if resolved.system.ignores_budget:  # the whole conversation in every prompt
        fix = (
            "a model or server with a larger window (llama-server -c), or a retrieval "
            "system (--system bm25 or embedding) that puts only what it finds in the prompt"
        )
    else:
        fix = (
            "a model or server with a larger window (llama-server -c), or less retrieved "
            "context (--context-budget, --top-k)"
        )
    advice = (
        f"the {overflows} {OVERFLOW} answer prompt(s) do not fit {held}: a rerun fails the "
        f"same way; what would help: {fix}"
    )
    others = sum(by_kind.values()) - overflows
    return advice if not others else f"{advice}; {rerun} for the other {others}"


def _run_on_ray(
    settings: RunSettings, shards: int | None, address: str | None, progress: bool
) -> None:
    from locoscore.run.ray_executor import run_on_ray

    if shards is None:
        raise InputError("--executor ray needs --shards N", field="--shards")

    def done(outcome: dict[str, Any], finished: int, total: int) -> None:
        failed = f", {outcome['failed']} failed" if outcome["failed"] else ""
        console.print(
            f"shard {outcome['index']}/{total} done ({finished} of {total}): "
            f"{outcome['questions']:,} questions{failed}",
            highlight=False,
        )

    bar = progress_for(err_console, progress, "answering (all shards)", "questions")
    try:
        summary, outcomes = run_on_ray(settings, shards, address, on_done=done, progress=bar)
    finally:
        bar.stop()
    # the merged folder's reports, as after any run (built in place: they name the folder)
    with bound(settings.out, "report"):
        get_benchmark(settings.benchmark).build_run_reports(settings.out)
    run = summary.get("run") or {}
    console.print(escape(str(run.get("signature"))), highlight=False, soft_wrap=True)
    written = ", ".join(summary.get("_written", ()))
    console.print(
        f"merged {shards} shard(s) into {escape(str(settings.out))}/{written}", highlight=False
    )
    failed = sum(o["failed"] for o in outcomes)
    if failed:
        err_console.print(
            f"[red]error:[/] {failed} question(s) failed (recorded with their error); rerun "
            "the same command to retry only those",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_FAILED)


def _dry_run_shards(settings: RunSettings, shards: int) -> None:
    """Each shard's dry run, here, one after the other (no Ray: nothing is answered), then
    the shards' estimates summed: what the Ray run would ask for, before it starts."""
    from dataclasses import replace

    from locoscore.run.ray_executor import shard_concurrency, shard_folder

    if shards < 1:
        raise InputError("must be at least 1", field="--shards")
    if settings.shard is not None:
        raise InputError("--executor ray runs every shard: drop --shard", field="--shard")
    summed: dict[str, Any] = {}
    for index in range(shards):
        part = replace(
            settings,
            shard=Shard(index, shards),
            out=shard_folder(settings.out, index),
            concurrency=shard_concurrency(settings.concurrency, shards),
        )
        resolved = resolve_run(part)
        estimate = run_pass(execute_run(resolved), None).dry_run_estimate or {}
        console.print(f"shard {index}/{shards}:", highlight=False)
        _print_estimate(estimate)
        for key, value in estimate.items():
            if key in ("calls", "cached", "cost_usd", "ingestion_calls") or key.endswith("_tokens"):
                held = summed.get(key, 0)  # None (unpriced) in one shard: in the total too
                summed[key] = None if held is None or value is None else held + value
            elif key == "search_errors":
                summed[key] = [*summed.get(key, []), *value]
            elif key != "context_fit":  # each shard's own prompts: shown above, per shard
                summed.setdefault(key, value)
    console.print(f"all {shards} shards together:", highlight=False)
    _print_estimate(summed)


def _print_estimate(estimate: dict[str, Any]) -> None:
    calls = int(estimate.get("calls") or 0)
    cached = (
        f"answer calls to make: {calls:,} (cached or not needed: {estimate.get('cached', 0):,})"
    )
    blocker = estimate.get("not_estimated")
    if blocker is not None:
        console.print(
            f"{cached}\nnot estimated: ingestion, retrieval, and the answer calls' tokens and "
            f"cost (their prompts hold what retrieval finds): {blocker}",
            highlight=False,
        )
        if estimate.get("ingestion_calls") is not None:
            console.print(
                f"ingestion calls, counted from the turns: at least "
                f"{estimate['ingestion_calls']:,} (none for a conversation already stored)",
                highlight=False,
            )
        return
    cost = estimate.get("cost_usd")
    shown = NO_PRICE if cost is None else f"${cost:.2f}"
    console.print(
        f"{cached}\n"
        f"estimated tokens: {estimate.get('input_tokens', 0):,} in{_cache_split(estimate)}, "
        f"{estimate.get('output_tokens', 0):,} out\n"
        f"estimated cost: {shown}",
        highlight=False,
    )
    fit = estimate.get("context_fit")
    if estimate.get("context_window") == "unknown":
        console.print(
            "context window: unknown (the server names none; --answer-context-window sets "
            "it): prompts are not checked against it, a prompt too long fails at its call",
            highlight=False,
        )
    if fit:
        console.print(
            f"context window: {fit['window']:,} tokens ({fit['source']}); "
            f"{fit['overflowing']:,} of {fit['questions']:,} question(s) would not fit "
            f"(counted with {fit['tokenizer']})",
            highlight=False,
        )
