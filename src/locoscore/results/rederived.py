"""What a results folder's numbers are recomputed from, for `verify` (`Benchmark.rederive`):
the run section its scoring is given, and the parts a benchmark does not recompute carried
over as they stand (named, so that the card says which numbers were not re-derived)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl, write_json_atomic, write_jsonl_atomic
from locoscore.results.folder import load_summary, row_key
from locoscore.results.layout import JUDGMENTS, PREDICTIONS, RUN_JSON, SCORES, SUMMARY

# Sections a recomputation never carries: the card and the report are rebuilt from it.
_REBUILT = frozenset({"claim", "report"})


def _object(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def run_section(directory: Path) -> dict[str, Any]:
    """The run section a folder's scoring was given: run.json without its finishing time
    (as `run` passes it), else summary.json's `run`, else nothing."""
    document = _object(directory / RUN_JSON)
    if document:
        return {k: v for k, v in document.items() if k != "finished_at"}
    run = _object(directory / SUMMARY).get("run")
    return run if isinstance(run, dict) else {}


def answers_source(directory: Path) -> Path:
    """The answers a folder's scores are of: its predictions.jsonl (a run's); else the
    answers file its summary.json `input` (or `scored`) names, when it is at hand with the recorded
    sha256 (answers scored as a file); else its scores.jsonl rows."""
    from locoscore._io import sha256_file

    if (directory / PREDICTIONS).is_file():
        return directory / PREDICTIONS
    summary = _object(directory / SUMMARY)
    for key in ("input", "scored"):  # where `score` and `judge` record the file they read
        given = summary.get(key)
        path = given.get("path") if isinstance(given, dict) else None
        recorded = given.get("sha256") if isinstance(given, dict) else None
        if isinstance(path, str) and Path(path).is_file() and sha256_file(Path(path)) == recorded:
            return Path(path)
    return directory / SCORES


def row_id(row: dict[str, Any]) -> str:
    value = row.get("question_id")
    return str(value) if value is not None else row_key(row)


def carry_over(directory: Path, out: Path) -> None:
    """What `out`'s recomputation does not hold, taken from the folder as it stands:
    summary.json sections (the judge's, the errata), scores.jsonl fields (a judge's
    per-question numbers) on the rows of the same question (the whole file where the
    benchmark's scoring writes none: its judge does), and judgments.jsonl."""
    theirs = _object(directory / SUMMARY)
    ours = _object(out / SUMMARY)
    extra = {k: v for k, v in theirs.items() if k not in ours and k not in _REBUILT}
    if extra:
        write_json_atomic(out / SUMMARY, {**ours, **extra})
    if (directory / SCORES).is_file() and not (out / SCORES).is_file():
        shutil.copyfile(directory / SCORES, out / SCORES)  # written by the judge alone
    elif (directory / SCORES).is_file() and (out / SCORES).is_file():
        old = {row_id(r): r for r in read_jsonl(directory / SCORES)}
        rows = read_jsonl(out / SCORES)
        merged = [{**old.get(row_id(r), {}), **r} for r in rows]
        if merged != rows:
            write_jsonl_atomic(out / SCORES, merged)
    if (directory / JUDGMENTS).is_file() and not (out / JUDGMENTS).is_file():
        shutil.copyfile(directory / JUDGMENTS, out / JUDGMENTS)


def judged_summary(directory: Path, out: Path) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """`carry_over`, then `out`'s summary and its judge section: what a benchmark's
    `rederive_judgments` recomputes from; None when the folder has no judge section or no
    judgments.jsonl (nothing of the judge's to recompute)."""
    carry_over(directory, out)
    summary = load_summary(out)
    judge = summary.get("judge")
    if not isinstance(judge, dict) or not (out / JUDGMENTS).is_file():
        return None
    return summary, judge


def drawn_question_ids(judge: dict[str, Any]) -> Any:
    """The question ids the judge's sample drew, as recorded (None: it drew none)."""
    sample = judge.get("sample")
    return sample.get("question_ids") if isinstance(sample, dict) else None


def carry_judgments(directory: Path, out: Path) -> list[str]:
    """The default of `Benchmark.rederive_judgments`: the judge's numbers carried over, and
    named as not re-derived when the folder was judged."""
    carry_over(directory, out)
    judged = isinstance(_object(directory / SUMMARY).get("judge"), dict)
    return ["the judge's numbers (read as the folder states them)"] if judged else []
