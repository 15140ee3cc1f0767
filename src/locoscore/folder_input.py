"""One results folder, one set of predictions.

Every part of a results folder that depends on the predictions records their fingerprint:
sha256 over the sorted (question identity, gold, prediction) triples, the identity being the
folder's row key (`results_dir.row_key`). The parts are summary.json's `input` (written by
`score` and `run`), its `judge.input` (`judge`), audit.json's `predictions` probe set
(`audit --predictions`), run.json's `predictions_fingerprint` (`run`), and scores.jsonl
itself, whose rows the fingerprint is recomputed from.

A command that writes into a folder first claims it for its input (`claim_folder`): a folder
holding results of other predictions is refused (one line naming both inputs), or, with
`--replace`, emptied of every file the commands wrote for the other input. The judge's
cache (`judge_cache.sqlite`) is kept: its key covers the question, the gold and the candidate
answer, so a verdict never attaches to another answer. So are the answer cache inside
`run_state.sqlite` (keyed by the whole prompt; the rest of the run state is forgotten) and
`system_state/` (the memory system's own stores, some of them the user's plugin's).
`report` (and every reader of a folder) refuses a folder whose parts disagree
(`check_consistent`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore.errors import InputError
from locoscore.results_dir import SCORES, SUMMARY, row_key

FINGERPRINT_PREFIX = "sha256:"
AUDIT_JSON = "audit.json"
_AUDIT_PREDICTIONS_SET = "predictions"


def predictions_fingerprint(rows: Iterable[Mapping[str, Any]]) -> str:
    """The fingerprint of base rows (or scores.jsonl rows): ids, gold and prediction texts."""
    items = sorted(
        [row_key(dict(row)), str(row.get("answer")), str(row.get("prediction"))] for row in rows
    )
    payload = json.dumps(items, ensure_ascii=False, separators=(",", ":"))
    return FINGERPRINT_PREFIX + hashlib.sha256(payload.encode("utf-8")).hexdigest()


def short(fingerprint: str) -> str:
    return fingerprint.removeprefix(FINGERPRINT_PREFIX)[:12]


@dataclass(frozen=True)
class InputIdentity:
    """Predictions as a folder records them: a human name and the fingerprint."""

    name: str
    fingerprint: str
    questions: int
    file_sha256: str | None = (
        None  # the file's own hash, to match parts written before fingerprints
    )

    def to_json(self) -> dict[str, Any]:
        return {"fingerprint": self.fingerprint, "records": self.questions}

    def describe(self) -> str:
        if not self.questions:
            return f"{self.name} (no predictions yet)"
        return f"{self.name} ({self.questions:,} questions, {short(self.fingerprint)})"


@dataclass(frozen=True)
class RecordedPart:
    """A part of a folder that depends on the predictions, and what it says they were."""

    part: str  # where: "summary.json input", "summary.json judge.input", ...
    identity: InputIdentity
    legacy: bool = False  # written before fingerprints: known only by the file's sha256

    def matches(self, ours: InputIdentity) -> bool:
        if self.legacy:
            return ours.file_sha256 is not None and ours.file_sha256 == self.identity.file_sha256
        return self.identity.fingerprint == ours.fingerprint


def identity_of_rows(
    name: str, rows: list[dict[str, Any]], *, file_sha256: str | None = None
) -> InputIdentity:
    return InputIdentity(name, predictions_fingerprint(rows), len(rows), file_sha256)


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _from_section(part: str, section: Any, name: str | None = None) -> RecordedPart | None:
    if not isinstance(section, dict):
        return None
    name = name or str(section.get("path") or "?")
    records = section.get("records")
    count = records if isinstance(records, int) else 0
    sha = section.get("sha256") if isinstance(section.get("sha256"), str) else None
    if isinstance(section.get("fingerprint"), str):
        return RecordedPart(part, InputIdentity(name, section["fingerprint"], count, sha))
    if sha is None:
        return None
    return RecordedPart(part, InputIdentity(name, f"file {sha[:12]}", count, sha), legacy=True)


def recorded_parts(directory: Path, rows: list[dict[str, Any]] | None = None) -> list[RecordedPart]:
    """Every part of the folder that names its predictions (unreadable parts are skipped:
    the commands' own checks report those)."""
    from locoscore.run.document import RUN_JSON

    parts: list[RecordedPart] = []
    summary = _read_json(directory / SUMMARY) or {}
    input_section = summary.get("input")
    for part, section in (
        ("summary.json input", input_section),
        ("summary.json judge.input", (summary.get("judge") or {}).get("input")),
    ):
        if (found := _from_section(part, section)) is not None:
            parts.append(found)
    audit = _read_json(directory / AUDIT_JSON) or {}
    for probe_set in audit.get("probe_sets") or []:
        if isinstance(probe_set, dict) and probe_set.get("name") == _AUDIT_PREDICTIONS_SET:
            found = _from_section("audit.json predictions", probe_set.get("source"))
            if found is not None:
                parts.append(found)
    run = _read_json(directory / RUN_JSON) or {}
    found = _from_section("run.json", run.get("predictions"), f"run {run.get('signature')}")
    if found is not None:
        parts.append(found)
    if not (isinstance(input_section, dict) and "fingerprint" in input_section):
        return parts  # scores.jsonl of another shape (or an older locoscore): not recomputed
    if rows is None and (directory / SCORES).is_file():
        try:
            from locoscore._io import read_jsonl

            rows = read_jsonl(directory / SCORES)
        except (OSError, ValueError):
            rows = None
    if rows:
        name = input_section.get("path") if isinstance(input_section, dict) else None
        parts.append(RecordedPart("scores.jsonl", identity_of_rows(str(name or SCORES), rows)))
    return parts


def _conflict_message(directory: Path, theirs: RecordedPart, ours: InputIdentity) -> str:
    hint = " (joined differently? check --dataset)" if theirs.identity.name == ours.name else ""
    return (
        f"holds results of other predictions: {theirs.identity.describe()} in {theirs.part}; "
        f"this is {ours.describe()}{hint}: add --replace to drop the folder's results, "
        "or choose another --out"
    )


def conflicting_part(
    directory: Path, ours: InputIdentity, *, only: Iterable[str] | None = None
) -> RecordedPart | None:
    wanted = None if only is None else set(only)
    for part in recorded_parts(directory):
        if wanted is not None and part.part not in wanted:
            continue
        if not part.matches(ours):
            return part
    return None


def claim_folder(
    directory: Path,
    ours: InputIdentity,
    *,
    replace: bool,
    dry_run: bool = False,
    keep_run: bool = False,
    only: Iterable[str] | None = None,
) -> list[str]:
    """Check that `directory` holds nothing of other predictions; with `replace`, drop what
    it holds (not in a dry run, which writes nothing). The names of the dropped files."""
    theirs = conflicting_part(directory, ours, only=only)
    if theirs is None:
        return []
    if not replace:
        raise InputError(_conflict_message(directory, theirs, ours), file=str(directory))
    return [] if dry_run else drop_results(directory, keep_run=keep_run)


def _result_files() -> tuple[str, ...]:
    from locoscore.judge.outputs import JUDGMENTS_FILE
    from locoscore.report.audit_report import AUDIT_HTML, AUDIT_MD
    from locoscore.report.build import REPORT_FILES

    return (SCORES, SUMMARY, *REPORT_FILES, JUDGMENTS_FILE, AUDIT_JSON, AUDIT_MD, AUDIT_HTML)


def drop_results(directory: Path, *, keep_run: bool = False) -> list[str]:
    """Delete the files the commands wrote for the folder's predictions; `keep_run` keeps
    the run's own files (a run about to rewrite them). The judge cache, the answer cache and
    the system's state stay (see the module docstring). Returns the names dropped."""
    from locoscore.run.document import RUN_JSON
    from locoscore.run.folder import PREDICTIONS
    from locoscore.run.store import STATE_FILE, forget_run

    names = list(_result_files())
    if not keep_run:
        names += [PREDICTIONS, RUN_JSON]
    dropped = []
    for name in names:
        path = directory / name
        if path.is_file():
            path.unlink()
            dropped.append(name)
    if not keep_run and forget_run(directory / STATE_FILE):
        dropped.append(f"{STATE_FILE} (its answer cache kept)")
    return dropped


def check_consistent(directory: Path, rows: list[dict[str, Any]]) -> None:
    """Refuse a folder whose parts name different predictions (tampered with, or mixed by
    an older locoscore): one line naming two parts that disagree."""
    parts = [part for part in recorded_parts(directory, rows) if not part.legacy]
    summary = _read_json(directory / SUMMARY) or {}
    legacy = _legacy_mismatch(summary)
    if legacy is not None:
        raise InputError(legacy, file=str(directory))
    if not parts:
        return
    first = parts[-1]  # scores.jsonl when present: what the numbers are computed from
    for part in parts:
        if part.identity.fingerprint != first.identity.fingerprint:
            raise InputError(
                f"parts of this folder disagree on the predictions: {part.part} says "
                f"{part.identity.describe()}, {first.part} says {first.identity.describe()}; "
                "rebuild it (e.g. `locoscore score ... --replace`) or use another folder",
                file=str(directory),
            )


def _legacy_mismatch(summary: dict[str, Any]) -> str | None:
    """Folders written before fingerprints: the input's and the judge's files must match."""
    source = summary.get("input")
    judged = (summary.get("judge") or {}).get("input")
    if not isinstance(source, dict) or not isinstance(judged, dict):
        return None
    if "fingerprint" in source or "fingerprint" in judged:
        return None
    if source.get("sha256") and judged.get("sha256") and source["sha256"] != judged["sha256"]:
        return (
            f"summary.json input ({source.get('path')}) and judge.input ({judged.get('path')}) "
            "are different files: J belongs to other predictions; rebuild the folder with "
            "--replace or use another folder"
        )
    return None
