"""A LoCoMo results folder read and checked by the shared loader (`generic.scored_folder`)
against LoCoMo's declared parts."""

from __future__ import annotations

from pathlib import Path

from locoscore.benchmarks.locomo.parts import PARTS
from locoscore.generic.scored_folder import Results as Results
from locoscore.generic.scored_folder import load_results as load_folder


def load_results(directory: Path) -> Results:
    """DIR/scores.jsonl and DIR/summary.json; bad input raises InputError naming the spot."""
    return load_folder(directory, PARTS)
