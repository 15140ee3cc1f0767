"""Answers to LongMemEval questions, from any of the files that hold them: a locoscore run's
predictions.jsonl, the official hypothesis file (`{question_id, hypothesis}` lines), or the
official evaluator's output (the same lines with `autoeval_label: {model, label}`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from locoscore.benchmarks.longmemeval.data import LongMemEvalData
from locoscore.errors import InputError


@dataclass
class Answers:
    path: Path
    format: str  # "locoscore", "hypotheses" or "autoeval"
    predictions: dict[str, str]  # submitted answers (a failed one is not submitted)
    failed: dict[str, str] = field(default_factory=dict)  # question id -> the run's error
    recorded: dict[str, bool] = field(default_factory=dict)  # the official evaluator's labels
    recorded_models: set[str] = field(default_factory=set)


def read_answers(path: Path, data: LongMemEvalData) -> Answers:
    """Every line checked; an id the dataset does not hold is bad input (one line, exit 2)."""
    if not path.is_file():
        raise InputError("answers file not found", file=str(path))
    known = {m.question_id for m in data.questions}
    answers = Answers(path, "", {})
    formats = set()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", file=str(path)) from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"line {n}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON ({exc.msg})", file=str(path), record=where) from None
        if not isinstance(row, dict):
            raise InputError("expected an object", file=str(path), record=where)
        qid = row.get("question_id")
        if not isinstance(qid, str):
            raise InputError(
                "missing or not a string", file=str(path), record=where, field="question_id"
            )
        if qid not in known:
            raise InputError(
                f"unknown question id {qid!r} (not in {data.path.name})",
                file=str(path),
                record=where,
                field="question_id",
            )
        if qid in answers.predictions or qid in answers.failed:
            raise InputError(f"question {qid!r} answered twice", file=str(path), record=where)
        if "hypothesis" in row:
            text, fmt = row["hypothesis"], "hypotheses"
        elif "prediction" in row:
            text, fmt = row["prediction"], "locoscore"
        else:
            raise InputError("missing", file=str(path), record=where, field="hypothesis")
        if not isinstance(text, str):
            raise InputError("expected a string", file=str(path), record=where, field="hypothesis")
        if fmt == "locoscore" and row.get("error"):
            answers.failed[qid] = str(row["error"])
        else:
            answers.predictions[qid] = text
        label = row.get("autoeval_label")
        if label is not None:
            if not isinstance(label, dict) or not isinstance(label.get("label"), bool):
                raise InputError(
                    "expected {model, label: true|false}",
                    file=str(path),
                    record=where,
                    field="autoeval_label",
                )
            fmt = "autoeval"
            answers.recorded[qid] = label["label"]
            answers.recorded_models.add(str(label.get("model")))
        formats.add(fmt)
    if not formats:
        raise InputError("holds no answers", file=str(path))
    answers.format = "autoeval" if "autoeval" in formats else sorted(formats)[0]
    return answers
