"""The judge's progress line: done/total, calls/s, ETA, cache hits, failures, tokens, cost."""

from __future__ import annotations

import io
import re

from rich.console import Console

from locoscore.judge.plan import JudgmentRow
from locoscore.judge.progress import RichProgress


def _row(run: int, score: float | None) -> JudgmentRow:
    return JudgmentRow(
        key="conv-1#0",
        sample_id="conv-1",
        qa_index=0,
        category=1,
        run=run,
        score=score,
        input_tokens=100,
        output_tokens=20,
    )


def test_progress_line_shows_every_figure() -> None:
    buffer = io.StringIO()
    bar = RichProgress(Console(file=buffer, width=200, force_terminal=False))
    bar.start(total=10, done=4, cached=4)
    bar.update([_row(0, 50.0), _row(1, None), _row(2, 70.0)], cost_usd=0.0123)
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
    bar.update([_row(0, 80.0)], cost_usd=None)
    bar.stop()
    assert "cost n/a" in buffer.getvalue()
