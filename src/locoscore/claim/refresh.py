"""The card recorded as summary.json's `claim` section, with the gates at their default
thresholds (no floor: the card of the folder alone) and the warnings."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from locoscore.results.layout import SUMMARY

if TYPE_CHECKING:
    from locoscore.claim.benchmark import ClaimedBenchmark


def claim_section(directory: Path, bench: ClaimedBenchmark) -> dict[str, Any]:
    """The folder's card, gates (default thresholds) and warnings, as summary.json holds it."""
    from locoscore.claim.card import build_card
    from locoscore.claim.gates import evaluate, warnings_of
    from locoscore.claim.parts import disagreements, read_folder

    folder = read_folder(directory)
    card = build_card(directory, bench, folder=folder)
    gates = evaluate(card, disagreements(folder, bench))
    return {**card, "gates": [g.to_json() for g in gates], "warnings": warnings_of(card)}


def recorded_claim(directory: Path, bench: ClaimedBenchmark) -> dict[str, Any]:
    """The section a writing command records: the card, or, when a part of the folder it
    reads cannot be read, the reason (the command's own outputs do not depend on it;
    `verify` refuses such a folder as bad input)."""
    from locoscore.errors import InputError

    try:
        return claim_section(directory, bench)
    except InputError as exc:
        return {"version": 1, "error": str(exc)}


def write_claim(directory: Path, bench: ClaimedBenchmark) -> dict[str, Any] | None:
    """Recompute and record the folder's claim in summary.json (atomically); None when the
    folder has no summary.json yet."""
    from locoscore._io import write_json_atomic
    from locoscore.results.folder import load_summary

    if not (directory / SUMMARY).is_file():
        return None
    summary = load_summary(directory)
    claim = recorded_claim(directory, bench)
    write_json_atomic(directory / SUMMARY, {**summary, "claim": claim})
    return claim
