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

`judge --executor ray --shards N` is the same for a judge: each task is `judge --shard I/N
--out DIR/shards/shard-I`; then the shards' judge caches are joined into DIR and the judge
of every question runs there from the joined cache (no call is made twice), so DIR holds
the unsharded judge's results and its spend is the shards' summed.

Rate limits stay global: every shard gets `--concurrency` divided by N (at least 1), so N
shards sharing one provider key never have more calls in flight together than one run
would; with an endpoint pool, each task gets its share of the servers (`EndpointPool.
for_shard`) and, when those are its own, all of `--concurrency`: a server's slots go with
the server (the fake provider's peak in-flight count checks it in the tests). A shared limiter
(a Ray actor every call would ask) was not chosen: a round trip per call to one actor, and
a single point of failure, for a bound the division already gives.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from locoscore._io import write_json_atomic
from locoscore.data.shard import Shard
from locoscore.errors import InputError
from locoscore.llm.progress import ProgressSink
from locoscore.results.layout import JUDGE_CACHE, RUN_JSON, RUN_STATE, SUMMARY
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

    from locoscore.results.manifest import bound
    from locoscore.run.outputs import write_run_outputs
    from locoscore.run.pipeline import execute_run, resolve_run

    resolved = resolve_run(settings)
    result = asyncio.run(execute_run(resolved))
    with bound(settings.out, "run") as binding:
        binding.read("dataset", settings.dataset)
        binding.read("answer prompt", settings.answer_prompt)
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
    settings: RunSettings,
    shards: int,
    address: str | None,
    *,
    on_done: Any = None,
    progress: ProgressSink | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Every shard as a Ray task, then the merge into `settings.out`: the merged summary
    and each shard's outcome. `progress` gets the questions every shard has answered
    together (read from their run states while they run): one line for the whole run."""
    check(settings, shards)
    ray = require_ray()
    from locoscore.run.pipeline import resolve_run

    # every input checked here, before a task starts (bad input: one line, nothing written)
    first = dataclasses.replace(settings, shard=Shard(0, shards), out=shard_folder(settings.out, 0))
    resolve_run(first)
    states = [shard_folder(settings.out, i) / RUN_STATE for i in range(shards)]
    tick = None
    if progress is not None:
        whole = resolve_run(dataclasses.replace(settings, shard=None))
        progress.start(len(whole.questions), sum(answered(p) for p in states), 0)
        seen = [answered(p) for p in states]

        def tick() -> None:
            now = [answered(p) for p in states]
            progress.update(sum(now) - sum(seen), 0, 0, None)
            seen[:] = now

    with ray_session(ray, address):
        task = ray.remote(run_shard).options(max_retries=1, retry_exceptions=True)
        pending = {
            task.remote(
                dataclasses.replace(
                    settings,
                    shard=Shard(i, shards),
                    out=shard_folder(settings.out, i),
                    concurrency=task_concurrency(settings, i, shards),
                )
            ): i
            for i in range(shards)
        }
        outcomes = wait_all(ray, pending, shards, on_done, tick)
    if tick is not None:
        tick()
    return merge_into(settings.out, shards), sorted(outcomes, key=lambda o: o["index"])


def task_concurrency(settings: RunSettings, index: int, shards: int) -> int:
    """A task's `--concurrency`: all of it when its share of an answer pool is its own
    (those servers' slots bound its calls), else its share of it."""
    pool = settings.answer.pool
    if pool is not None and not pool.for_shard(index, shards).shared:
        return settings.concurrency
    return shard_concurrency(settings.concurrency, shards)


def shard_concurrency(concurrency: int, shards: int) -> int:
    """One shard's share of `--concurrency`: the shards together stay within it."""
    return max(1, concurrency // shards)


@contextmanager
def ray_session(ray: Any, address: str | None) -> Iterator[None]:
    """Ray, connected (to `address`, else a local Ray) unless the caller already is; shut
    down after only when connected here."""
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
        yield
    finally:
        if started:
            ray.shutdown()


def answered(state: Path) -> int:
    """Questions a shard's run state holds (0 before its task has made it); read while the
    task writes it, so a locked or half-made file counts as nothing yet."""
    if not state.is_file():
        return 0
    try:
        conn = sqlite3.connect(f"file:{state}?mode=ro", uri=True, timeout=0.5)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM questions").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def wait_all(
    ray: Any,
    pending: dict[Any, int],
    shards: int,
    on_done: Any,
    tick: Callable[[], None] | None = None,
    tick_s: float = 1.0,
) -> list[dict[str, Any]]:
    """Every task's outcome, as each finishes (`on_done(outcome, finished, total)`);
    `tick()` about every `tick_s` seconds while they run."""
    outcomes: list[dict[str, Any]] = []
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1, timeout=tick_s if tick else None)
        if tick is not None:
            tick()
        if not done:
            continue
        ref = done[0]
        pending.pop(ref)
        outcome = ray.get(ref)
        outcomes.append(outcome)
        if on_done is not None:
            on_done(outcome, len(outcomes), shards)
    return outcomes


def judge_shard(judge: Callable[[Any], bool], call: Any) -> dict[str, Any]:
    """One judge shard, in a Ray worker: `judge(call)` is the command's own pass."""
    failed = judge(call)
    return {"index": call.shard.index, "failed": bool(failed), "folder": str(call.out)}


def judge_on_ray(
    judge: Callable[[Any], bool], call: Any, shards: int, address: str | None, *, on_done: Any
) -> list[dict[str, Any]]:
    """`judge(call)` for every shard as a Ray task (`call` a `JudgeCall`, each shard's into
    DIR/shards/shard-I with its share of the concurrency), then their caches joined into
    DIR's; the caller judges DIR from it. Each shard's outcome, in shard order."""
    if shards < 1:
        raise InputError("must be at least 1", field="--shards")
    ray = require_ray()
    settings = call.settings
    with ray_session(ray, address):
        task = ray.remote(judge_shard).options(max_retries=1, retry_exceptions=True)
        pending = {
            task.remote(
                judge,
                dataclasses.replace(
                    call,
                    out=shard_folder(call.out, i),
                    shard=Shard(i, shards),
                    progress=False,
                    settings=judge_share(settings, i, shards),
                ),
            ): i
            for i in range(shards)
        }
        outcomes = wait_all(ray, pending, shards, on_done)
    join_judge_caches(call.out, shards)
    return sorted(outcomes, key=lambda o: o["index"])


def judge_share(settings: Any, index: int, shards: int) -> Any:
    """A judge task's settings (`JudgeSettings`): its share of a pool (its own servers keep
    their slots: all of `--concurrency`), else its share of `--concurrency`."""
    pool = settings.pool
    if pool is not None:
        part = pool.for_shard(index, shards)
        if not part.shared:
            return dataclasses.replace(settings, pool=part)
        settings = dataclasses.replace(settings, pool=part)
    return dataclasses.replace(
        settings, concurrency=shard_concurrency(settings.concurrency, shards)
    )


def join_judge_caches(out: Path, shards: int) -> None:
    """DIR's judge cache rebuilt from the shards' (their verdicts and their attempts, so
    the judge's spend is theirs summed); verdicts DIR held of other settings are kept.
    Rebuilt, not appended to: a rerun does not count the shards' attempts twice."""
    from locoscore.run.merge import join_sqlite

    staging = out / SHARDS_DIR / f".{JUDGE_CACHE}"
    staging.unlink(missing_ok=True)
    caches = [shard_folder(out, i) / JUDGE_CACHE for i in range(shards)]
    join_sqlite(staging, caches, {"judgments": ""})
    if not staging.is_file():
        return
    target = out / JUDGE_CACHE
    if target.is_file():
        conn = sqlite3.connect(str(staging), isolation_level=None)
        try:
            conn.execute("ATTACH DATABASE ? AS held", (str(target),))
            conn.execute("INSERT OR IGNORE INTO main.judgments SELECT * FROM held.judgments")
            conn.execute("DETACH DATABASE held")
        finally:
            conn.close()
    os.replace(staging, target)


def merge_into(out: Path, shards: int) -> dict[str, Any]:
    """The shards merged into `out` beside `shards/`: merged into a fresh folder first,
    then each file moved into place (a rerun replaces the earlier merge's files)."""
    from locoscore.results.manifest import bound
    from locoscore.run.merge import merge_folders

    staging = out / SHARDS_DIR / ".merged"
    shutil.rmtree(staging, ignore_errors=True)
    folders = [shard_folder(out, i) for i in range(shards)]
    # bound where it is written: its manifest moves into DIR with the files it names
    with bound(staging, "merge") as binding:
        for folder in folders:
            binding.read(f"shard {folder.name}", folder)
        summary = merge_folders(folders, staging)
    for child in staging.iterdir():
        target = out / child.name
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        os.replace(child, target)
    staging.rmdir()
    if not (out / SUMMARY).is_file():
        raise InputError("the merge wrote no summary.json", file=str(out))
    # the files name where they were merged; they live in `out` now (the staging is gone)
    for name in (SUMMARY, RUN_JSON):
        document = json.loads((out / name).read_text(encoding="utf-8"))
        write_json_atomic(out / name, _moved(document, str(staging), str(out)))
    return _moved(summary, str(staging), str(out))


def _moved(value: Any, old: str, new: str) -> Any:
    """`value` with every path under `old` (a string starting with it) under `new`."""
    if isinstance(value, dict):
        return {k: _moved(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_moved(v, old, new) for v in value]
    if isinstance(value, str) and (value == old or value.startswith(old + os.sep)):
        return new + value[len(old) :]
    return value
