"""A results folder's parts as the claim card reads them, and whether they agree.

Every reader here is tolerant of a part that is absent (an imported predictions file has no
run.json, an unjudged run no judgments.jsonl); a part that is present but unreadable is bad
input, named with its file (`verify` exits 2 on it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from locoscore.errors import InputError
from locoscore.results.folder import row_key
from locoscore.results.layout import AUDIT_JSON, JUDGMENTS, PREDICTIONS, RUN_JSON, SCORES, SUMMARY

if TYPE_CHECKING:
    from locoscore.claim.benchmark import ClaimedBenchmark


def _json(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"not valid JSON ({exc})", file=str(path)) from None
    if not isinstance(loaded, dict):
        raise InputError("expected a JSON object", file=str(path))
    return loaded


def _lines(path: Path) -> list[dict[str, Any]] | None:
    if not path.is_file():
        return None
    rows = []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read ({exc})", file=str(path)) from None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise InputError("not valid JSON", file=str(path), record=f"line {number}") from None
        if not isinstance(row, dict):
            raise InputError("expected a JSON object", file=str(path), record=f"line {number}")
        rows.append(row)
    return rows


def question_id(row: dict[str, Any]) -> str:
    """A row's question: its `question_id`, else its row key (`results.folder.row_key`)."""
    value = row.get("question_id")
    return str(value) if value is not None else row_key(row)


def section(document: Any, *path: str) -> Any:
    """`document[path...]`, None where any step is missing or not an object."""
    for key in path:
        if not isinstance(document, dict):
            return None
        document = document.get(key)
    return document


@dataclass
class Folder:
    """What one results folder holds (None: the part is absent)."""

    path: Path
    summary: dict[str, Any]
    run: dict[str, Any] | None  # run.json, else summary.json's `run` section
    run_file: dict[str, Any] | None  # run.json itself
    predictions: list[dict[str, Any]] | None
    scores: list[dict[str, Any]] | None
    judgments: list[dict[str, Any]] | None
    audit: dict[str, Any] | None
    problems: list[str] = field(default_factory=list)  # parts that disagree

    @property
    def judge(self) -> dict[str, Any] | None:
        judge = self.summary.get("judge")
        return judge if isinstance(judge, dict) else None

    def question_ids(self) -> list[str]:
        """The questions the folder holds: its run's (or imported file's) answers, else the
        rows of its scores."""
        rows = self.predictions if self.predictions is not None else (self.scores or [])
        return list(dict.fromkeys(question_id(r) for r in rows))

    def data(self) -> dict[str, Any]:
        """The data file the folder's numbers are over: path, sha256, version."""
        for candidate in (
            self.summary.get("data"),
            self.summary.get("dataset"),
            section(self.run, "dataset"),
            section(self.judge, "dataset"),
        ):
            if isinstance(candidate, dict) and candidate.get("sha256"):
                return candidate
        return {}

    def sample(self) -> dict[str, Any] | None:
        """The sample the folder's questions were drawn as (`--limit`), if any."""
        for candidate in (section(self.run, "sample"), section(self.judge, "sample")):
            if isinstance(candidate, dict) and candidate.get("population"):
                return candidate
        return None


def read_folder(directory: Path) -> Folder:
    if not directory.is_dir():
        raise InputError("not a results folder (no such folder)", file=str(directory))
    summary = _json(directory / SUMMARY)
    run_file = _json(directory / RUN_JSON)
    if summary is None and run_file is None:
        raise InputError(f"not a results folder (no {SUMMARY} or {RUN_JSON})", file=str(directory))
    summary = summary or {}
    run = run_file if run_file is not None else summary.get("run")
    return Folder(
        directory,
        summary,
        run if isinstance(run, dict) else None,
        run_file,
        _lines(directory / PREDICTIONS),
        _lines(directory / SCORES),
        _lines(directory / JUDGMENTS),
        _json(directory / AUDIT_JSON),
    )


def disagreements(folder: Folder, bench: ClaimedBenchmark) -> list[str]:
    """The parts of the folder that disagree, one line each: the predictions every part
    records (`results.identity.check_consistent`), run.json against predictions.jsonl (count
    and fingerprint), summary.json's run signature against run.json's, and the questions of
    scores.jsonl against those of predictions.jsonl, and the judge's served models as
    summary.json states them against those judgments.jsonl records."""
    from locoscore.results.identity import check_consistent, comparable

    out: list[str] = []
    try:
        check_consistent(folder.path, folder.scores or [])
    except InputError as exc:
        out.append(str(exc.args[0]) if exc.args else str(exc))
    run, records = folder.run_file, folder.predictions
    recorded = section(run, "predictions")
    if isinstance(recorded, dict) and records is not None:
        count = recorded.get("records")
        if isinstance(count, int) and count != len(records):
            out.append(
                f"{RUN_JSON} records {count} predictions, {PREDICTIONS} holds {len(records)}"
            )
        else:
            theirs = recorded.get("fingerprint")
            ours = bench.run_fingerprint(records)
            if isinstance(theirs, str) and comparable(theirs, ours) and theirs != ours:
                out.append(
                    f"{RUN_JSON} fingerprint {theirs[:24]}… is not that of {PREDICTIONS} "
                    f"({ours[:24]}…): the answers changed after the run"
                )
    in_summary = section(folder.summary, "run", "signature")
    in_run = section(run, "signature")
    if isinstance(in_summary, str) and isinstance(in_run, str) and in_summary != in_run:
        out.append(f"{SUMMARY} run.signature {in_summary} differs from {RUN_JSON}'s {in_run}")
    served = sorted(
        {str(r["served_model"]) for r in folder.judgments or [] if r.get("served_model")}
    )
    stated = section(folder.judge, "served", "models")
    if served and isinstance(stated, list) and stated and sorted(set(map(str, stated))) != served:
        out.append(
            f"{SUMMARY} judge.served.models {sorted(map(str, stated))} is not what "
            f"{JUDGMENTS} records of its verdicts ({served})"
        )
    if records is not None and folder.scores:
        asked = {question_id(r) for r in records}
        scored = {question_id(r) for r in folder.scores}
        if scored - asked:
            out.append(
                f"{SCORES} scores {len(scored - asked)} question(s) that {PREDICTIONS} does not "
                f"hold (e.g. {sorted(scored - asked)[0]})"
            )
    return out
