"""The progress line of a pass of calls: done/total, rate, ETA, hits, failures, tokens, cost."""

from __future__ import annotations

import io
import re

from rich.console import Console

from locoscore.llm.progress import RichProgress


def test_progress_line_shows_every_figure() -> None:
    buffer = io.StringIO()
    bar = RichProgress(Console(file=buffer, width=200, force_terminal=False))
    bar.start(total=10, done=4, cached=4)
    bar.update(done=3, failed=1, tokens=360, cost_usd=0.0123)
    bar.stop()
    final = buffer.getvalue().strip().splitlines()[-1]
    assert "7/10" in final  # 4 cached + 3 just finished
    assert re.search(r"\d+\.\d calls/s", final)
    assert re.search(r"(\d|-):(\d\d|--):(\d\d|--)", final)  # the ETA column (unknown yet)
    assert "cached 4 · failed 1 · tokens 360 · cost $0.01" in final


def test_unknown_cost_is_shown_as_not_available() -> None:
    buffer = io.StringIO()
    bar = RichProgress(Console(file=buffer, width=200, force_terminal=False))
    bar.start(total=1, done=0, cached=0)
    bar.update(done=1, failed=0, tokens=120, cost_usd=None)
    bar.stop()
    assert "cost n/a" in buffer.getvalue()
