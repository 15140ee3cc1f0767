"""`locoscore merge`: a run's shard folders (`run --shard I/N`) as one results folder."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape

from locoscore.cli._app import app, console, handle_errors
from locoscore.cli._options import DatasetOpt
from locoscore.errors import InputError
from locoscore.results.layout import PREDICTIONS
from locoscore.results.manifest import bound

if TYPE_CHECKING:
    from locoscore.benchmarks import Benchmark
    from locoscore.benchmarks.calls import JudgeCall
    from locoscore.judge.settings import JudgeSettings


@app.command("merge")
@handle_errors
def merge(
    folders: list[Path] = typer.Argument(..., help="The shard folders (run --shard I/N)."),
    out: Path = typer.Option(..., "--out", help="A new folder for the merged run."),
    dataset: DatasetOpt = None,
    allow_partial: bool = typer.Option(
        False,
        "--allow-partial",
        help="Merge the shards given even if some are missing; the result says it is a subset.",
    ),
    judge: bool = typer.Option(
        True,
        "--judge/--no-judge",
        help="Judged shards: write the judge's results too, from their joined caches "
        "(no call); --no-judge merges the run alone.",
    ),
) -> None:
    """Join a run's shard folders (run --shard I/N) into one folder equal to the unsharded run's.

    The shards are checked first (benchmark, data file, selection, run and judge signatures,
    shard count; disjoint; complete unless --allow-partial); a refused merge writes nothing.
    predictions.jsonl, scores.jsonl and summary.json are the unsharded run's; calls, tokens
    and costs are summed; the run states and judge caches are joined. Judged shards: the
    judge's results (judgments.jsonl, the judge section, J in the reports) are rebuilt from
    the joined caches as the unsharded judge writes them, with no call.

    Writes into OUT (new or empty): predictions.jsonl, run.json, run_state.sqlite,
    judge_cache.sqlite and judgments.jsonl (when the shards were judged), scores.jsonl,
    summary.json and the benchmark's reports (report.md, report.html, scores.csv;
    hypotheses.jsonl where the benchmark's evaluator reads it)."""
    # imported here, not at the top: `locoscore --help` stays free of NumPy and NLTK
    from locoscore.benchmarks import benchmark_of
    from locoscore.judge.settings import settings_of_section
    from locoscore.results.folder import load_summary
    from locoscore.run.merge import merge_folders

    section = load_summary(folders[0]).get("judge") if folders and judge else None
    settings = None
    if isinstance(section, dict):  # rebuilt before anything is written
        bench = benchmark_of([folders[0]], None)
        settings = settings_of_section(section, signs_exclusion=bool(bench.excluded_from_overall))
    with bound(out, "merge") as binding:
        for folder in folders:  # each shard as its manifest names it
            binding.read(f"shard {folder}", folder)
        binding.read("dataset", dataset)
        summary = merge_folders(folders, out, dataset=dataset, allow_partial=allow_partial)
        bench = benchmark_of([out], None)
        bench.build_run_reports(out)  # as `run` does: its reports
    run = summary.get("run") or {}
    shards = len(run.get("merged_from", {}).get("shards", []))
    console.print(
        f"merged {shards} shard(s), {run.get('questions', 0):,} questions: "
        f"{escape(str(run.get('signature')))}",
        highlight=False,
        soft_wrap=True,
    )
    written = ", ".join(summary.get("_written", ()))
    console.print(f"wrote {escape(str(out))}/{written}", highlight=False)
    if settings is not None:
        with bound(out, "judge"):
            _judge_merged(bench, out, settings, dataset)


def _judge_merged(
    bench: Benchmark, out: Path, settings: JudgeSettings, dataset: Path | None
) -> None:
    """The shards' judge over the merged folder, every verdict from the joined caches: a dry
    run first, and no judge at all (one line naming the command) when it would call."""
    from dataclasses import replace

    from locoscore.cli._app import EXIT_FAILED
    from locoscore.cli._terminal import quiet_terminal, terminal

    call = _judge_call(bench, out, settings, dataset)
    kept: list[Any] = []
    bench.judge_command(replace(call, dry_run=True), quiet_terminal(kept))
    missing = sum(_calls_to_make(result) for result in kept)
    if missing or not kept:
        command = f"locoscore judge {out / PREDICTIONS} --out {out}"
        raise InputError(
            f"the run is merged, the judge's results are not: {missing:,} verdict(s) of the "
            "shards' judge are not in their joined caches (a prompt template or option the "
            f"judge section does not record); run `{command}` with the shards' judge options"
        )
    if bench.judge_command(call, terminal()):
        raise typer.Exit(EXIT_FAILED)


def _judge_call(
    bench: Benchmark, out: Path, settings: JudgeSettings, dataset: Path | None
) -> JudgeCall:
    """The `judge` of the merged folder with the shards' settings: every question the
    unsharded judge judges (the run's own sample, if any), the run's data file."""
    from locoscore.benchmarks.calls import JudgeCall
    from locoscore.data.sample import judged_sample
    from locoscore.results.folder import read_run_dataset
    from locoscore.run.document import read_run_answer, read_run_sample

    predictions = out / PREDICTIONS
    recorded = read_run_dataset(predictions)
    request = judged_sample(None, read_run_sample(predictions, bench.run_fingerprint))
    return JudgeCall.of_folder(
        predictions,
        out,
        settings,
        dataset or (recorded[0] if recorded else None),
        request,
        run_answers={out: read_run_answer(out)},
    )


def _calls_to_make(result: Any) -> int:
    """A dry run's calls: a pass's (`PassResult`), or every pass's of a benchmark's fold."""
    if isinstance(result, tuple):  # (result, section) of a benchmark's own judge
        result = result[0]
    from locoscore.benchmarks.commands import passes_of

    return sum(p.estimate.calls for p in passes_of(result))
