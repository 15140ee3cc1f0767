"""LoCoMo-Plus test data: cuts of the real file (../shared, never committed) beside the real
locomo10.json, so that a run ingests a few stitched conversations, not 401."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
PLUS = SHARED / "locomo-plus" / "locomo_plus.json"
LOCOMO = SHARED / "locomo10.json"
# items 0-3 are causal, 101-102 state, 201 goal, 301 value; 1 and 101 have one-week
# gaps, 5 and 104 vague ones ("several months later")
CUT = (0, 1, 5, 101, 104, 201, 301)


def need_real_data() -> None:
    if not (PLUS.exists() and LOCOMO.exists()):
        pytest.skip("LoCoMo-Plus or locomo10.json not at ../shared/data")


def write_cut(folder: Path, indices: tuple[int, ...] = CUT) -> Path:
    """A folder holding locomo_plus.json (the chosen items of the real file, in order) and
    a copy of the real locomo10.json."""
    need_real_data()
    items = json.loads(PLUS.read_text(encoding="utf-8"))
    folder.mkdir(parents=True, exist_ok=True)
    chosen = [items[i] for i in indices]
    (folder / "locomo_plus.json").write_text(json.dumps(chosen), encoding="utf-8")
    (folder / "locomo10.json").write_bytes(LOCOMO.read_bytes())
    return folder


def level_verdict(prompt: str) -> int:
    """The fake judge: 100 for a reply saying FULL, 50 for HALF, else 0 (read from the
    fenced candidate alone, so the cue or trigger never decides)."""
    fenced = re.search(r"<candidate[^>]*>(.*?)</candidate", prompt, re.S)
    reply = fenced.group(1) if fenced else ""
    return 100 if "FULL" in reply else 50 if "HALF" in reply else 0
