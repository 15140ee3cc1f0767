"""Reading a run folder's `run.json` from other commands (judge, report, compare)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from locoscore.data.sample import QuestionSample

from locoscore.results.layout import PREDICTIONS, RUN_JSON


def read_run(folder: Path) -> dict[str, Any] | None:
    """The folder's run.json, or None when there is none or it cannot be read."""
    path = folder / RUN_JSON
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def read_run_answer(folder: Path) -> dict[str, Any] | None:
    """The answer step recorded in the folder's run.json (provider, model, prompt)."""
    run = read_run(folder)
    answer = None if run is None else run.get("answer")
    return answer if isinstance(answer, dict) else None


def _own_run_section(
    predictions: Path, name: str, fingerprint: Callable[[list[dict[str, Any]]], str]
) -> tuple[dict[str, Any], Path, list[dict[str, Any]]] | None:
    """Section `name` of the run.json beside `predictions` (a file, or a results folder: its
    run's predictions), when they are the predictions that run wrote: the section, the
    predictions file and its rows. None when there is no such section, or the file is not
    the run's own (edited, another file) or cannot be read (the command reading it reports
    that)."""
    from locoscore._io import read_jsonl

    if predictions.is_dir():
        predictions = predictions / PREDICTIONS
    if not predictions.is_file():
        return None
    run = read_run(predictions.parent)
    section = None if run is None else run.get(name)
    written = None if run is None else run.get("predictions")
    if not isinstance(section, dict) or not isinstance(written, dict):
        return None
    try:
        rows = read_jsonl(predictions)
    except (OSError, ValueError):
        return None
    if fingerprint(rows) != written.get("fingerprint"):
        return None
    return section, predictions, rows


def read_run_sample(
    predictions: Path, fingerprint: Callable[[list[dict[str, Any]]], str]
) -> QuestionSample | None:
    """The sample a run asked (`run --limit`), when `predictions` is that run's own file
    (or its folder):
    run.json beside it records the sample and the fingerprint of the predictions it wrote.
    `judge` then judges exactly those questions, and its headline is over them.
    `fingerprint` is the benchmark's own (`Benchmark.records_identity`), as the run wrote it."""
    from locoscore.data.sample import QuestionSample
    from locoscore.errors import InputError

    own = _own_run_section(predictions, "sample", fingerprint)
    if own is None:
        return None
    sample, predictions, _ = own
    try:
        return QuestionSample.from_json(sample)
    except ValueError as exc:
        where = str(predictions.parent / RUN_JSON)
        raise InputError(str(exc), file=where, field="sample") from None


def read_run_shard(
    predictions: Path, fingerprint: Callable[[list[dict[str, Any]]], str]
) -> tuple[Any, list[str], int] | None:
    """The shard a run asked (`run --shard I/N`), when `predictions` is that shard's own
    file (or folder): (the `data.shard.Shard`, its question ids, the questions across
    every shard). `judge` then judges exactly its questions, as that shard."""
    from locoscore.data.shard import Shard
    from locoscore.errors import InputError

    own = _own_run_section(predictions, "shard", fingerprint)
    if own is None:
        return None
    shard, predictions, rows = own
    try:
        parsed = Shard(int(shard["index"]), int(shard["count"]))
        total = int(shard["population"])
    except (KeyError, TypeError, ValueError):
        raise InputError(
            "unreadable shard record", file=str(predictions.parent / RUN_JSON), field="shard"
        ) from None
    return parsed, [str(r.get("question_id")) for r in rows], total
