"""Which run, and which predictions, a run folder holds (`folder_input` for `locoscore run`).

A run's predictions are known only once it has answered, so it claims its folder twice:
before any work, for the run it is (the folder's run signature, and results of the
predictions that run already wrote), and before writing, for the predictions it produced
(a judge or audit of earlier predictions, e.g. before failed questions were retried, would
otherwise stay beside the new ones).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from locoscore._io import read_jsonl, sha256_file
from locoscore.errors import InputError
from locoscore.folder_input import (
    InputIdentity,
    claim_folder,
    conflicting_part,
    identity_of_rows,
)
from locoscore.llm.endpoint import without_served
from locoscore.run.document import RUN_JSON, read_run
from locoscore.run.store import STATE_FILE, stored_signature

PREDICTIONS = "predictions.jsonl"
Drop = Literal["all", "results"]
# The parts a run does not rewrite itself: they must belong to the predictions it wrote.
_NOT_REWRITTEN = ("summary.json judge.input", "audit.json predictions")


def _earlier_signature(out: Path) -> tuple[str | None, Path]:
    run = read_run(out)
    path = out / RUN_JSON
    if run is None and path.exists():
        raise InputError(
            "earlier run.json cannot be read; remove it or choose another --out", file=str(path)
        )
    if run is not None:
        return run.get("signature"), path
    return stored_signature(out / STATE_FILE), out / STATE_FILE


def _written_predictions(out: Path, signature: str) -> InputIdentity:
    """The predictions this run already left in the folder (none yet: nothing matches)."""
    path = out / PREDICTIONS
    try:
        rows = read_jsonl(path) if path.is_file() else []
    except (OSError, ValueError):
        rows = []
    if not rows:
        return InputIdentity(f"run {signature}", "none", 0)
    return identity_of_rows(str(path), rows, file_sha256=sha256_file(path))


def check_run_folder(out: Path, signature: str, *, replace: bool) -> Drop | None:
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
    ours = _written_predictions(out, signature)
    if conflicting_part(out, ours) is None:
        return None
    claim_folder(out, ours, replace=replace, dry_run=True)  # raises without --replace
    return "results"


def claim_for_predictions(out: Path, records: list[dict[str, Any]], *, replace: bool) -> list[str]:
    """Before writing the run's predictions: the folder's judge and audit must be of them."""
    ours = identity_of_rows(str(out / PREDICTIONS), records)
    written = _written_predictions(out, "")
    if written.fingerprint == ours.fingerprint:  # unchanged: the file's hash names it too
        ours = written
    return claim_folder(out, ours, replace=replace, keep_run=True, only=_NOT_REWRITTEN)
