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
# Nine items of the real file: causal 0 (two weeks), 1 (one week), 56 (several months);
# state 101 (two months), 104 (one week); goal 216 (several months), 250 (three months);
# value 301 (one month), 318 (a couple of months). Two are short-gap (the cue session
# adjacent to the trigger): 1 and 104, the one-week gaps.
NINE = (0, 1, 56, 101, 104, 216, 250, 301, 318)


def need_real_data() -> None:
    if not (PLUS.exists() and LOCOMO.exists()):
        pytest.skip("LoCoMo-Plus or locomo10.json not at ../shared/data")


def write_cut(folder: Path, indices: tuple[int, ...] = NINE) -> Path:
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
