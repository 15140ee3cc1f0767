"""`run --executor ray --shards N`: the N shards of a run as Ray tasks, then the merge.

Ray is an optional extra (`pip install 'locoscore[ray]'`); nothing here imports it until a
run asks for it. Without `--ray-address`, `ray.init()` starts a local Ray on this machine's
cores; with it, the tasks run on that cluster (every node needs locoscore, the data file and
a shared filesystem for DIR).

Each task is one shard, exactly as `run --shard I/N --out DIR/shards/shard-I` would run it
(its own system instance, its own resumable folder). A task that fails is retried alone
(Ray's `max_retries`); the others' folders are kept. Once every shard has finished, the
shards are merged into DIR (`run.merge`), so DIR holds the unsharded run's results beside
`shards/`. A rerun of the same command after an interruption resumes every shard.

Rate limits: each shard keeps its own (`--concurrency`, the adaptive limit per process), so
N shards sharing one provider key may together send up to N times one run's concurrency;
give each shard `--concurrency` divided by N when the key's limit matters.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path
from typing import Any

from locoscore.benchmarks import get_benchmark
from locoscore.data.shard import Shard
from locoscore.errors import InputError
from locoscore.results.layout import SUMMARY
from locoscore.run.settings import RunSettings

SHARDS_DIR = "shards"
INSTALL_HINT = "--executor ray needs Ray: pip install 'locoscore[ray]' (or pip install ray)"


def require_ray() -> Any:
    """The `ray` module, or bad input saying how to install it."""
    try:
        import ray
    except ImportError:
        raise InputError(INSTALL_HINT, field="--executor") from None
    return ray


def shard_folder(out: Path, index: int) -> Path:
    return out / SHARDS_DIR / f"shard-{index}"


def run_shard(settings: RunSettings) -> dict[str, Any]:
    """One shard, in a Ray worker: the run, its outputs and reports, as `run` writes them."""
    import asyncio

    from locoscore.run.outputs import write_run_outputs
    from locoscore.run.pipeline import execute_run, resolve_run

    resolved = resolve_run(settings)
    result = asyncio.run(execute_run(resolved))
    write_run_outputs(result, settings.out)
    resolved.benchmark.build_run_reports(settings.out, errata=resolved.errata)
    assert settings.shard is not None
    return {
        "index": settings.shard.index,
        "questions": len(result.records),
        "failed": result.failed,
        "folder": str(settings.out),
    }


def check(settings: RunSettings, shards: int) -> None:
    """Before Ray starts: what a Ray run cannot take."""
    if shards < 1:
        raise InputError("must be at least 1", field="--shards")
    if settings.shard is not None:
        raise InputError("--executor ray runs every shard: drop --shard", field="--shard")
    if settings.dry_run:
        raise InputError(
            "a dry run of a sharded run: run `--dry-run --shard I/N` for each shard",
            field="--dry-run",
        )
    out = settings.out
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a folder", file=str(out), field="--out")


def run_on_ray(
    settings: RunSettings, shards: int, address: str | None, *, on_done: Any = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Every shard as a Ray task, then the merge into `settings.out`: the merged summary
    and each shard's outcome."""
    check(settings, shards)
    ray = require_ray()
    from locoscore.run.pipeline import resolve_run

    # every input checked here, before a task starts (bad input: one line, nothing written)
    first = dataclasses.replace(settings, shard=Shard(0, shards), out=shard_folder(settings.out, 0))
    resolve_run(first)
    started = not ray.is_initialized()
    if started:
        path = os.environ.get("PYTHONPATH")
        ray.init(
            address=address,
            include_dashboard=False,
            log_to_driver=False,
            # the workers import this locoscore, as the driver does
            runtime_env={"env_vars": {"PYTHONPATH": path}} if path else None,
        )
    try:
        task = ray.remote(run_shard).options(max_retries=1, retry_exceptions=True)
        pending = {
            task.remote(
                dataclasses.replace(
                    settings, shard=Shard(i, shards), out=shard_folder(settings.out, i)
                )
            ): i
            for i in range(shards)
        }
        outcomes: list[dict[str, Any]] = []
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            ref = done[0]
            pending.pop(ref)
            outcome = ray.get(ref)
            outcomes.append(outcome)
            if on_done is not None:
                on_done(outcome, len(outcomes), shards)
    finally:
        if started:
            ray.shutdown()
    summary = merge_into(settings.out, shards)
    # the merged folder's reports, as after any run (built in place: they name the folder)
    get_benchmark(settings.benchmark).build_run_reports(settings.out)
    return summary, sorted(outcomes, key=lambda o: o["index"])


def merge_into(out: Path, shards: int) -> dict[str, Any]:
    """The shards merged into `out` beside `shards/`: merged into a fresh folder first,
    then each file moved into place (a rerun replaces the earlier merge's files)."""
    from locoscore.run.merge import merge_folders

    staging = out / SHARDS_DIR / ".merged"
    shutil.rmtree(staging, ignore_errors=True)
    folders = [shard_folder(out, i) for i in range(shards)]
    summary = merge_folders(folders, staging)
    for child in staging.iterdir():
        target = out / child.name
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        os.replace(child, target)
    staging.rmdir()
    if not (out / SUMMARY).is_file():
        raise InputError("the merge wrote no summary.json", file=str(out))
    return summary
