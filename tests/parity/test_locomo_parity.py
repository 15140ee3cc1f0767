"""Every LoCoMo number on the real data is what it was before the benchmark-shape refactor.

The snapshot was written by `locomo_parity.py --write` on main at 358a26b (before the
refactor): `score` and a two-run `judge` (the fake provider's deterministic reference-recall
rule) of Memobase's published result file, and a `run` of bm25 with the extractive answerer
on conv-26 judged the same way. Every number those commands wrote must be bit-identical;
new fields may appear (a defect fix may add one), none may change or disappear.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from locomo_parity import LOCOMO, MEMOBASE, SNAPSHOT, run_all


def test_every_locomo_number_is_unchanged(tmp_path: Path) -> None:
    if not (LOCOMO.exists() and MEMOBASE.exists()):
        pytest.skip("real LoCoMo data or the peer result file is missing")
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    actual = run_all(tmp_path)
    for folder, numbers in expected.items():
        got = actual[folder]
        changed = {
            key: (value, got["summary"].get(key, "<missing>"))
            for key, value in numbers["summary"].items()
            if got["summary"].get(key, "<missing>") != value
        }
        assert changed == {}, f"{folder}: summary.json numbers moved (before, after)"
        for part in ("scores_rows", "scores", "judgments_rows", "judgments"):
            assert got.get(part) == numbers.get(part), f"{folder}: {part} differs"
