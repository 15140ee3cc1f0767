"""A results folder (`--out DIR`): scores.jsonl + summary.json that several commands compose.

`locoscore score` and `locoscore judge` each own some fields of every `scores.jsonl` row and
one section of `summary.json`; writing keeps what the other command wrote.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from locoscore._io import dumps_json, read_jsonl, write_text_atomic
from locoscore.errors import InputError
from locoscore.results.layout import RUN_JSON, SCORES, SUMMARY

SCHEMA_VERSION = 1


def row_key(row: dict[str, Any]) -> str:
    """A question's identity in a results folder: `sample_id#qa_index` when joined, else
    question and gold text (stable across systems, so folders can still be compared)."""
    if row.get("sample_id") is not None and row.get("qa_index") is not None:
        return f"{row['sample_id']}#{row['qa_index']}"
    return f"?|{row.get('question')}|{row.get('answer')}"


def recorded_benchmark_name(directory: Path) -> str | None:
    """The benchmark a results folder records (summary.json, else run.json): a third-party
    benchmark's `benchmark_source` (`python:module:NAME`), else its name; None when neither
    file says (folders from before the field: the registry says whose they are)."""
    for name in (SUMMARY, RUN_JSON):
        path = directory / name
        if path.is_file():
            try:
                document = json.loads(path.read_text(encoding="utf-8"))
                value = document.get("benchmark_source") or document.get("benchmark")
            except (ValueError, AttributeError):
                continue  # the command reading the folder reports a bad file itself
            if isinstance(value, str):
                return value
    return None


def load_scores(directory: Path) -> list[dict[str, Any]]:
    path = directory / SCORES
    return read_jsonl(path) if path.exists() else []


def load_summary(directory: Path) -> dict[str, Any]:
    path = directory / SUMMARY
    if not path.exists():
        return {}
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def merge_rows(
    existing: Sequence[dict[str, Any]],
    new_rows: Sequence[dict[str, Any]],
    owned_prefixes: Iterable[str],
) -> list[dict[str, Any]]:
    """New rows, plus each matching old row's fields that the writer does not own.

    A writer owns the columns it produces (e.g. `f1_`, `bleu1_` for `score`); fields of the
    other commands (e.g. `j_` from `judge`) survive a rewrite.
    """
    owned = tuple(owned_prefixes)
    old_by_key = {row_key(row): row for row in existing}
    merged = []
    for row in new_rows:
        old = old_by_key.get(row_key(row), {})
        kept = {k: v for k, v in old.items() if k not in row and not k.startswith(owned)}
        merged.append({**row, **kept})
    return merged


def write_results(
    directory: Path,
    rows: Sequence[dict[str, Any]],
    summary_sections: dict[str, Any],
    owned_prefixes: Iterable[str],
    extra_files: Callable[[dict[str, Any]], dict[str, str]] | None = None,
) -> dict[str, Any]:
    """Write scores.jsonl, summary.json (and `extra_files(summary)`), keeping the other
    commands' columns and sections. Everything is rendered before anything is written, and
    each file is replaced atomically, so a failure leaves the folder as it was."""
    merged = merge_rows(load_scores(directory), rows, owned_prefixes)
    summary = {**load_summary(directory), **summary_sections, "schema_version": SCHEMA_VERSION}
    summary.pop("report", None)  # statistics of the old rows; `locoscore report` rebuilds them
    lines = [json.dumps(row, ensure_ascii=False, allow_nan=False) for row in merged]
    texts = {SCORES: "\n".join(lines) + ("\n" if lines else ""), SUMMARY: dumps_json(summary)}
    if extra_files is not None:
        texts.update(extra_files(summary))
    for name, text in texts.items():
        write_text_atomic(directory / name, text)
    return summary


def answered_by(run: Any, nobody: str) -> str:
    """Who made a folder's answers, from its run section: the memory system's name and the
    answer model ("mem0 + gpt-4o-mini"); `nobody` where the run names neither."""
    if not isinstance(run, Mapping):
        return nobody
    system, answer = run.get("system"), run.get("answer")
    name = system.get("name") if isinstance(system, Mapping) else system
    model = answer.get("model") if isinstance(answer, Mapping) else None
    return " + ".join(str(x) for x in (name, model) if x) or nobody


def check_out_dir(out: Path) -> None:
    """Refuse an --out that cannot take the results before any work is done: a file in the
    way, or earlier results there that cannot be read (new rows are merged into them)."""
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a folder", file=str(out), field="--out")
    for name in (SCORES, SUMMARY):
        path = out / name
        if not path.exists():
            continue
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read earlier results ({exc})", file=str(path)) from None
        documents = enumerate(lines, 1) if name == SCORES else [(None, "\n".join(lines))]
        for number, text in documents:
            if number is not None and not text.strip():
                continue
            where = None if number is None else f"line {number}"
            try:
                value = json.loads(text)
            except (json.JSONDecodeError, RecursionError):
                raise InputError(
                    "earlier results are not valid JSON; remove the file or choose another --out",
                    file=str(path),
                    record=where,
                ) from None
            if not isinstance(value, dict):
                raise InputError(
                    "earlier results: expected a JSON object; remove the file or choose "
                    "another --out",
                    file=str(path),
                    record=where,
                )


def read_run_dataset(predictions: Path) -> tuple[Path, str | None] | None:
    """The data file the run of `predictions` (its folder's run.json) read and its sha256,
    when that file is still where it was: what a judge of one shard splits by when no data
    file is given or found (a plain judge of LoCoMo's own records needs none)."""
    folder = predictions if predictions.is_dir() else predictions.parent
    try:
        run = json.loads((folder / RUN_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    dataset = run.get("dataset") if isinstance(run, dict) else None
    path = dataset.get("path") if isinstance(dataset, dict) else None
    if not (isinstance(path, str) and Path(path).is_file()):
        return None
    assert isinstance(dataset, dict)
    sha = dataset.get("sha256")
    return Path(path), sha if isinstance(sha, str) else None
