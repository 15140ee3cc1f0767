"""One results folder, one input: the folder guard of every command and every benchmark.

Every part of a results folder that depends on the answers it holds records their identity:
a fingerprint, sha256 over the sorted (question identity, answer) tuples (`answers_identity`;
a benchmark says which fields form them, e.g. the question id and the answer text, or a
LoCoMo row's key, gold and prediction, `identity_of_rows`). The parts are summary.json's
`input` (written by `score` and `run`), its `judge.input` (`judge`), audit.json's
`predictions` probe set (`audit --predictions`), run.json's `predictions` (`run`), and
scores.jsonl itself, whose rows the fingerprint is recomputed from where summary.json's
`input` says they are rows of that shape.

A command that writes into a folder first claims it for its input (`claim_folder`): a folder
holding results of other answers is refused (one line naming both inputs), or, with
`--replace`, emptied of every file the commands wrote for the other input. The judge's
cache (`judge_cache.sqlite`) is kept: its key covers the question, the gold and the candidate
answer, so a verdict never attaches to another answer. So are the answer cache inside
`run_state.sqlite` (keyed by the whole prompt; the caller's `forget_run` forgets the rest of
the run state) and `system_state/` (the memory system's own stores, some of them the user's
plugin's). `report` (and every reader of a folder) refuses a folder whose parts disagree
(`check_consistent`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl, sha256_text
from locoscore.errors import InputError
from locoscore.results.folder import row_key
from locoscore.results.layout import (
    AUDIT_JSON,
    RESULT_FILES,
    RUN_FILES,
    RUN_JSON,
    RUN_STATE,
    SCORES,
    SUMMARY,
)
from locoscore.results.manifest import forget

# Two schemes, told apart by their prefix: LoCoMo-shaped rows (the first, kept as it was so
# older folders still match) and (question id, answer) pairs. A part recorded in the other
# scheme (a folder written before its benchmark had pairs) cannot be compared: it is skipped.
FINGERPRINT_PREFIX = "sha256:"
ANSWERS_PREFIX = "answers-sha256:"
_SCHEMES = (ANSWERS_PREFIX, FINGERPRINT_PREFIX)
_AUDIT_PREDICTIONS_SET = "predictions"
# The parts of a folder that name its input, as messages name them.
PART_INPUT = f"{SUMMARY} input"
PART_JUDGE_INPUT = f"{SUMMARY} judge.input"
PART_AUDIT = f"{AUDIT_JSON} {_AUDIT_PREDICTIONS_SET}"
PART_RUN = RUN_JSON
PART_SCORES = SCORES
# Forgets the run kept in a folder's run state (given its path), keeping its answer cache;
# False when there is none. The run package owns that file: it passes this in.
ForgetRun = Callable[[Path], bool]


def _sha256_of_sorted(items: Iterable[Sequence[str]]) -> str:
    """sha256 over the sorted tuples: the order of the lines does not count."""
    listed = sorted(list(item) for item in items)
    payload = json.dumps(listed, ensure_ascii=False, separators=(",", ":"))
    return sha256_text(payload)


def answers_fingerprint(pairs: Iterable[tuple[str, str]]) -> str:
    """The fingerprint of answers: sha256 over the sorted (question id, answer text) pairs."""
    return ANSWERS_PREFIX + _sha256_of_sorted(pairs)


def predictions_fingerprint(rows: Iterable[Mapping[str, Any]]) -> str:
    """The fingerprint of LoCoMo-shaped rows (base rows, or scores.jsonl rows): the row key,
    gold and prediction texts (the gold too: a file joined to another dataset differs)."""
    return FINGERPRINT_PREFIX + _sha256_of_sorted(
        (row_key(dict(row)), str(row.get("answer")), str(row.get("prediction"))) for row in rows
    )


def _scheme(fingerprint: str) -> str | None:
    return next((p for p in _SCHEMES if fingerprint.startswith(p)), None)


def comparable(a: str, b: str) -> bool:
    """Whether two fingerprints can be compared: not of two different known schemes."""
    sa, sb = _scheme(a), _scheme(b)
    return sa is None or sb is None or sa == sb


def short(fingerprint: str) -> str:
    scheme = _scheme(fingerprint)
    return (fingerprint.removeprefix(scheme) if scheme else fingerprint)[:12]


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

    part: str  # where: PART_INPUT, PART_JUDGE_INPUT, ...
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


def answers_identity(
    name: str, pairs: Iterable[tuple[str, str]], *, file_sha256: str | None = None
) -> InputIdentity:
    """An answers file as a folder records it, from its (question id, answer text) pairs:
    the identity any benchmark whose questions have ids can give its answers."""
    listed = list(pairs)
    return InputIdentity(name, answers_fingerprint(listed), len(listed), file_sha256)


def submitted_pairs(records: Iterable[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """(question id, answer) of a run's prediction lines that hold an answer: a failed
    question (its `error` set) submitted none, as in the answers files read back."""
    return [
        (str(r.get("question_id")), str(r.get("prediction"))) for r in records if not r.get("error")
    ]


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
    parts: list[RecordedPart] = []
    summary = _read_json(directory / SUMMARY) or {}
    input_section = summary.get("input")
    for part, section in (
        (PART_INPUT, input_section),
        (PART_JUDGE_INPUT, (summary.get("judge") or {}).get("input")),
    ):
        if (found := _from_section(part, section)) is not None:
            parts.append(found)
    audit = _read_json(directory / AUDIT_JSON) or {}
    for probe_set in audit.get("probe_sets") or []:
        if isinstance(probe_set, dict) and probe_set.get("name") == _AUDIT_PREDICTIONS_SET:
            found = _from_section(PART_AUDIT, probe_set.get("source"))
            if found is not None:
                parts.append(found)
    run = _read_json(directory / RUN_JSON) or {}
    found = _from_section(PART_RUN, run.get("predictions"), f"run {run.get('signature')}")
    if found is not None:
        parts.append(found)
    if not (isinstance(input_section, dict) and "fingerprint" in input_section):
        return parts  # scores.jsonl of another shape (or an older locoscore): not recomputed
    if rows is None and (directory / SCORES).is_file():
        try:
            rows = read_jsonl(directory / SCORES)
        except (OSError, ValueError):
            rows = None
    if rows:
        name = input_section.get("path") if isinstance(input_section, dict) else None
        parts.append(RecordedPart(PART_SCORES, identity_of_rows(str(name or SCORES), rows)))
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
        if not part.legacy and not comparable(part.identity.fingerprint, ours.fingerprint):
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
    forget_run: ForgetRun | None = None,
) -> list[str]:
    """Check that `directory` holds nothing of other predictions; with `replace`, drop what
    it holds (not in a dry run, which writes nothing; `forget_run` forgets a run's state).
    The names of the dropped files. An --out that is a file is refused here, for every
    benchmark, before any call (a run's or judge's files could never be written into it)."""
    if directory.exists() and not directory.is_dir():
        raise InputError("exists and is not a folder", file=str(directory), field="--out")
    theirs = conflicting_part(directory, ours, only=only)
    if theirs is None:
        return []
    if not replace:
        raise InputError(_conflict_message(directory, theirs, ours), file=str(directory))
    if dry_run:
        return []
    return drop_results(directory, keep_run=keep_run, forget_run=forget_run)


def drop_results(
    directory: Path, *, keep_run: bool = False, forget_run: ForgetRun | None = None
) -> list[str]:
    """Delete the files the commands wrote for the folder's predictions; `keep_run` keeps
    the run's own files (a run about to rewrite them), else `forget_run` forgets the run in
    its state file. The judge cache, the answer cache and the system's state stay (see the
    module docstring). Returns the names dropped."""
    names = list(RESULT_FILES)
    if not keep_run:
        names += RUN_FILES
    dropped = []
    for name in names:
        path = directory / name
        if path.is_file():
            path.unlink()
            dropped.append(name)
    forget(directory, dropped)
    if not keep_run and forget_run is not None and forget_run(directory / RUN_STATE):
        dropped.append(f"{RUN_STATE} (its answer cache kept)")
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
        theirs, ours = part.identity.fingerprint, first.identity.fingerprint
        if comparable(theirs, ours) and theirs != ours:
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
            f"{PART_INPUT} ({source.get('path')}) and judge.input ({judged.get('path')}) "
            "are different files: J belongs to other predictions; rebuild the folder with "
            "--replace or use another folder"
        )
    return None
