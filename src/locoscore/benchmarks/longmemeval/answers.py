"""Answers to LongMemEval questions, from any of the files that hold them: a locoscore run's
predictions.jsonl, the official hypothesis file (`{question_id, hypothesis}` lines), or the
official evaluator's output (the same lines with `autoeval_label: {model, label}`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from locoscore._io import sha256_file
from locoscore.benchmarks.longmemeval.data import LongMemEvalData
from locoscore.errors import InputError
from locoscore.results.answers_file import answer_lines
from locoscore.results.identity import InputIdentity, answers_identity


@dataclass
class Answers:
    path: Path
    format: str  # "locoscore", "hypotheses" or "autoeval"
    predictions: dict[str, str]  # submitted answers (a failed one is not submitted)
    failed: dict[str, str] = field(default_factory=dict)  # question id -> the run's error
    recorded: dict[str, bool] = field(default_factory=dict)  # the official evaluator's labels
    recorded_models: set[str] = field(default_factory=set)


def identity(answers: Answers) -> InputIdentity:
    """The answers as a results folder records them: the submitted (question id, answer)
    pairs, whatever the file's format (a run's predictions.jsonl and its hypotheses.jsonl
    are one input). The file's hash matches a folder judged before fingerprints."""
    pairs = answers.predictions.items()
    return answers_identity(str(answers.path), pairs, file_sha256=sha256_file(answers.path))


def read_answers(path: Path, data: LongMemEvalData) -> Answers:
    """Every line checked; an id the dataset does not hold is bad input (one line, exit 2)."""
    known = {m.question_id for m in data.questions}
    answers = Answers(path, "", {})
    formats = set()
    for where, qid, row in answer_lines(path, known, data.path.name):
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
