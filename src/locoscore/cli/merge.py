"""`locoscore merge`: a run's shard folders (`run --shard I/N`) as one results folder."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from locoscore.cli._app import app, console, handle_errors
from locoscore.cli._options import DatasetOpt
from locoscore.results.layout import PREDICTIONS
from locoscore.results.manifest import bound


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
) -> None:
    """Join a run's shard folders (run --shard I/N) into one folder equal to the unsharded run's.

    The shards are checked first (benchmark, data file, run and judge signatures, shard
    count; disjoint; complete unless --allow-partial); a refused merge writes nothing.
    predictions.jsonl, scores.jsonl and summary.json are the unsharded run's; calls, tokens
    and costs are summed; the run states and judge caches are joined, so a judge of the
    merged folder with the shards' judge options makes no call.

    Writes into OUT (new or empty): predictions.jsonl, run.json, run_state.sqlite,
    judge_cache.sqlite (when the shards were judged), scores.jsonl, summary.json and the
    benchmark's reports (report.md, report.html, scores.csv; hypotheses.jsonl where the
    benchmark's evaluator reads it)."""
    # imported here, not at the top: `locoscore --help` stays free of NumPy and NLTK
    from locoscore.benchmarks import benchmark_of
    from locoscore.run.merge import merge_folders

    with bound(out, "merge") as binding:
        for folder in folders:  # each shard as its manifest names it
            binding.read(f"shard {folder}", folder)
        binding.read("dataset", dataset)
        summary = merge_folders(folders, out, dataset=dataset, allow_partial=allow_partial)
        benchmark_of([out], None).build_run_reports(out)  # as `run` does: its reports
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
    if run.get("merged_from", {}).get("judged"):
        console.print(
            f"the shards were judged: run `locoscore judge {escape(str(out / PREDICTIONS))} --out "
            f"{escape(str(out))}` with the shards' judge options to write the judge's results; "
            "every verdict comes from the joined judge cache (no call is made again)",
            highlight=False,
            soft_wrap=True,
        )
