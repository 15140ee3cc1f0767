"""`locoscore judge`: the LLM judge over a predictions file, N runs per question."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import typer

from locoscore.benchmarks import DEFAULT_BENCHMARK, Benchmark, get_benchmark
from locoscore.benchmarks.calls import JudgeCall
from locoscore.cli._app import (
    EXIT_FAILED,
    app,
    console,
    handle_errors,
)
from locoscore.cli._judge_options import (
    JUDGE_DEFAULTS,
    JudgeFlags,
    MaxUnscoredOpt,
    ResponseFormatOpt,
    type_template_help,
    with_judge_flags,
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
    base_urls_option,
    endpoint_pool,
    left_out_types,
    pool_option,
)
from locoscore.cli._terminal import terminal
from locoscore.data.sample import judged_sample, sample_spec
from locoscore.data.shard import Shard
from locoscore.errors import InputError
from locoscore.judge.folder import DEFAULT_MAX_UNSCORED
from locoscore.judge.shard import run_shard_sample
from locoscore.results.manifest import bound
from locoscore.run.document import read_run_answer, read_run_sample, read_run_shard

TYPE_TEMPLATE_HELP = type_template_help()


@app.command("judge")
@handle_errors
@with_judge_flags
def judge(
    predictions: PredictionsArg,
    out: Path = typer.Option(..., "--out", help="Output folder (composes with `score`)."),
    dataset: DatasetOpt = None,
    fmt: FormatOpt = None,
    prediction_key: PredictionKeyOpt = None,
    strict: StrictOpt = False,
    include_adversarial: bool = typer.Option(
        False,
        "--include-adversarial",
        help=f"Also judge the question types left out of the overall ({left_out_types()}); "
        "not judged by default.",
    ),
    judging: JudgeFlags = JUDGE_DEFAULTS,
    base_url: list[str] = base_urls_option(
        "--base-url", " (default: ANTHROPIC_BASE_URL / OPENAI_BASE_URL, else the provider)", ""
    ),
    pool: Path | None = pool_option("--pool", "judge"),
    errata: ErrataOpt = None,
    response_format: ResponseFormatOpt = None,
    max_unscored: MaxUnscoredOpt = DEFAULT_MAX_UNSCORED,
    limit: LimitOpt = None,
    limit_per: LimitPerOpt = None,
    seed: SeedOpt = None,
    benchmark: BenchmarkOpt = DEFAULT_BENCHMARK,
    type_template: list[str] = typer.Option(
        [],
        "--type-template",
        help=TYPE_TEMPLATE_HELP,
    ),
    replace: ReplaceOpt = False,
    shard: ShardOpt = None,
    executor: str = typer.Option(
        "local",
        "--executor",
        help="local | ray: judge --shards N shards as Ray tasks (DIR/shards/shard-I), then "
        "every question in DIR from their joined caches.",
    ),
    shards: int | None = typer.Option(
        None, "--shards", help="With --executor ray: how many shards.", min=1
    ),
    ray_address: str | None = typer.Option(
        None, "--ray-address", help="With --executor ray: an existing cluster (default: local)."
    ),
    panel: Path | None = typer.Option(
        None,
        "--panel",
        help="PANEL.toml: judge with every [[judge]] it lists (name, provider, model, "
        "base_url, protocol, template, runs), each into DIR/judges/<name>/, then the panel's "
        "spread and agreement (DIR/panel.json, panel.md).",
    ),
    gold_evidence: Path | None = typer.Option(
        None,
        "--gold-evidence",
        help="With --panel: the judged folder of a gold-evidence run of the same answer "
        "model, for P(correct | gold retrieved) and the memory's share of the losses.",
    ),
) -> None:
    """Judge every prediction N times; rerunning resumes from DIR/judge_cache.sqlite.

    Writes into DIR: judgments.jsonl, judge_cache.sqlite, the j_* fields of scores.jsonl, the
    "judge" section of summary.json, report.md, report.html, scores.csv; with --user-cache
    also the user-level judge_cache.sqlite. A dry run writes nothing. With --panel, each
    judge writes these into DIR/judges/<name>/ and the panel writes DIR/panel.json, panel.md
    and the "panel" section of summary.json."""
    bench = get_benchmark(benchmark)
    bench.require("judge")
    settings = judging.settings(
        base_url=base_url[0] if len(base_url) == 1 else None,
        pool=endpoint_pool(base_url, pool, "--base-url", "--pool"),
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
    if wanted is not None and settings.pool is not None:  # this shard's endpoints
        settings.pool = settings.pool.for_shard(wanted.index, wanted.count)
    if (ran_shard := read_run_shard(predictions, bench.run_fingerprint)) is not None:
        request = run_shard_sample(ran_shard, wanted, ran, spec)  # the run's own shard
        wanted = None
    call = JudgeCall(
        predictions=predictions, out=out, dataset=dataset, fmt=fmt, prediction_key=prediction_key,
        strict=strict, settings=settings, runs=judging.runs,
        include_adversarial=include_adversarial, type_templates=type_template, errata=errata,
        max_unscored=max_unscored, request=request, replace=replace, shard=wanted,
        run_answers={f: read_run_answer(f) for f in dict.fromkeys((predictions.parent, out))},
        **judging.how_the_pass_runs(),
    )  # fmt: skip
    if gold_evidence is not None and panel is None:
        raise InputError("goes with --panel", field="--gold-evidence")
    if panel is not None and (executor != "local" or shards is not None):
        raise InputError(
            "a panel is judged on this machine: drop --executor/--shards", field="--panel"
        )
    with bound(out, "judge") as binding:
        for role, path in (
            ("predictions", predictions),
            ("dataset", dataset),
            ("errata", errata),
            ("prompt template", judging.prompt_template),
            ("panel", panel),
            ("gold evidence", gold_evidence),
        ):
            binding.read(role, path)
        for given in type_template:  # TYPE=FILE: the file is an input
            if Path(file := given.partition("=")[2]).is_file():
                binding.read(f"type template {given.partition('=')[0]}", Path(file))
        failed = _judge(
            bench, call, panel, gold_evidence, executor, shards, ray_address, ran_shard is not None
        )
    if failed:
        raise typer.Exit(EXIT_FAILED)


def _judge(
    bench: Benchmark,
    call: JudgeCall,
    panel: Path | None,
    gold_evidence: Path | None,
    executor: str,
    shards: int | None,
    ray_address: str | None,
    run_shard: bool,
) -> bool:
    """The judge asked for (a panel, the shards on Ray, or one judge); True: it failed."""
    if panel is not None:
        from locoscore.benchmarks.panel_command import panel_command

        return panel_command(bench, call, panel, terminal(), gold_evidence)
    if executor not in ("local", "ray"):
        raise InputError(f"{executor}: expected local or ray", field="--executor")
    if executor == "ray" or shards is not None:
        if call.shard is not None or run_shard:
            raise InputError(
                "--executor ray judges every shard: drop --shard (and give it the whole "
                "run's predictions, not a shard's)",
                field="--shard",
            )
        if executor != "ray" or shards is None:
            raise InputError("--shards N goes with --executor ray", field="--shards")
        _judge_sharded(bench, call, shards, ray_address)
    return bench.judge_command(call, terminal())


def _judge_shard(bench: Benchmark, call: JudgeCall) -> bool:
    """One shard's judge, in a Ray worker (what it prints stays in the worker's log)."""
    with bound(call.out, "judge"):
        return bench.judge_command(call, terminal())


def _judge_sharded(bench: Benchmark, call: JudgeCall, shards: int, address: str | None) -> None:
    """Every shard's judge (a dry run: each shard's estimate, here, before the whole's)."""
    from dataclasses import replace

    from locoscore.run.ray_executor import judge_on_ray, require_ray, shard_folder

    if call.dry_run:
        for index in range(shards):
            console.print(f"shard {index}/{shards}:", highlight=False)
            part = replace(call, shard=Shard(index, shards), out=shard_folder(call.out, index))
            bench.judge_command(part, terminal())
        console.print(f"all {shards} shards together:", highlight=False)
        return
    require_ray()

    def done(outcome: dict[str, Any], finished: int, total: int) -> None:
        failed = " (some calls failed; rerun to retry them)" if outcome["failed"] else ""
        console.print(
            f"shard {outcome['index']}/{total} judged ({finished} of {total} done){failed}",
            highlight=False,
        )

    judge_on_ray(partial(_judge_shard, bench), call, shards, address, on_done=done)
