"""Which run, and which predictions, a run folder holds (the folder guard for `run`).

A run's predictions are known only once it has answered, so it claims its folder twice:
before any work, for the run it is (the folder's run signature, and results of the
predictions that run already wrote), and before writing, for the predictions it produced
(a judge or audit of earlier predictions, e.g. before failed questions were retried, would
otherwise stay beside the new ones).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from locoscore._io import read_jsonl, sha256_file
from locoscore.errors import InputError
from locoscore.llm.endpoint import without_served
from locoscore.results.identity import (
    PART_AUDIT,
    PART_JUDGE_INPUT,
    InputIdentity,
    claim_folder,
    conflicting_part,
)
from locoscore.results.layout import PREDICTIONS, RUN_JSON, RUN_STATE
from locoscore.run.document import read_run
from locoscore.run.store import stored_signature

Drop = Literal["all", "results"]
# A run's prediction lines as its benchmark's folders record them (`records_identity`).
RecordsIdentity = Callable[[str, list[dict[str, Any]]], InputIdentity]
# The parts a run does not rewrite itself: they must belong to the predictions it wrote.
_NOT_REWRITTEN = (PART_JUDGE_INPUT, PART_AUDIT)


def _earlier_signature(out: Path) -> tuple[str | None, Path]:
    run = read_run(out)
    path = out / RUN_JSON
    if run is None and path.exists():
        raise InputError(
            f"earlier {RUN_JSON} cannot be read; remove it or choose another --out", file=str(path)
        )
    if run is not None:
        return run.get("signature"), path
    return stored_signature(out / RUN_STATE), out / RUN_STATE


def _written_predictions(out: Path, signature: str, identity: RecordsIdentity) -> InputIdentity:
    """The predictions this run already left in the folder (none yet: nothing matches)."""
    path = out / PREDICTIONS
    try:
        rows = read_jsonl(path) if path.is_file() else []
    except (OSError, ValueError):
        rows = []
    if not rows:
        return InputIdentity(f"run {signature}", "none", 0)
    return dataclasses.replace(identity(str(path), rows), file_sha256=sha256_file(path))


def check_run_folder(
    out: Path, signature: str, *, replace: bool, identity: RecordsIdentity
) -> Drop | None:
    """Before any work: what `--replace` must drop, if anything; without it, a folder of
    another run or of other predictions is refused (one line, nothing written)."""
    earlier, where = _earlier_signature(out)
    # run.json's signature also names what the server said it served, known only after calls
    if earlier is not None and without_served(earlier) != signature:
        if not replace:
            raise InputError(
                f"holds a run with another signature ({earlier}); this run is {signature}: "
                "add --replace to drop it, or choose another --out",
                file=str(where),
            )
        return "all"
    ours = _written_predictions(out, signature, identity)
    if conflicting_part(out, ours) is None:
        return None
    claim_folder(out, ours, replace=replace, dry_run=True)  # raises without --replace
    return "results"


def claim_for_predictions(
    out: Path, records: list[dict[str, Any]], *, replace: bool, identity: RecordsIdentity
) -> list[str]:
    """Before writing the run's predictions: the folder's judge and audit must be of them."""
    ours = identity(str(out / PREDICTIONS), records)
    written = _written_predictions(out, "", identity)
    if written.fingerprint == ours.fingerprint:  # unchanged: the file's hash names it too
        ours = written
    return claim_folder(out, ours, replace=replace, keep_run=True, only=_NOT_REWRITTEN)
