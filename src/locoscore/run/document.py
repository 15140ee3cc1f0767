"""Reading a run folder's `run.json` from other commands (judge, report, compare)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from locoscore.results.layout import RUN_JSON


def read_run(folder: Path) -> dict[str, Any] | None:
    """The folder's run.json, or None when there is none or it cannot be read."""
    path = folder / RUN_JSON
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def read_run_answer(folder: Path) -> dict[str, Any] | None:
    """The answer step recorded in the folder's run.json (provider, model, prompt)."""
    run = read_run(folder)
    answer = None if run is None else run.get("answer")
    return answer if isinstance(answer, dict) else None
