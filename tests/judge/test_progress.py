"""The progress of a pass of calls (done/total, rate, ETA, hits, failures, tokens, cost), on a
terminal and off one, and the one line an interrupted command ends with."""

from __future__ import annotations

import asyncio
import io
import re
import signal
import time

import typer
from rich.console import Console
from typer.testing import CliRunner

from locoscore.cli._app import handle_errors
from locoscore.cli._interrupt import run_pass
from locoscore.llm.progress import LineProgress, RichProgress, Tally, progress_for


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


def test_off_a_terminal_a_plain_line_comes_at_a_steady_pace_and_one_at_the_end() -> None:
    buffer = io.StringIO()
    line = LineProgress(Console(file=buffer, force_terminal=False), interval_s=0.05)
    line.start(total=10, done=4, cached=4)
    line.update(done=3, failed=1, tokens=360, cost_usd=0.0123, calls=5)
    time.sleep(0.3)
    line.update(done=3, failed=0, tokens=120, cost_usd=0.02, calls=8)
    line.stop()
    lines = buffer.getvalue().splitlines()
    assert len(lines) >= 3  # several while running, whatever happens, and the final one
    pattern = (
        r"judging: 7/10 calls \(70 %\) · 5 calls · 1 failed · cost \$0\.01 · elapsed \ds · ETA \ds"
    )
    assert re.fullmatch(pattern, lines[0])
    end = r"judging: 10/10 calls \(100 %\) · 8 calls · 1 failed · cost \$0\.02 · elapsed \ds"
    assert re.fullmatch(end + " · ETA done", lines[-1])


def test_an_interrupted_pass_leaves_the_last_word_to_the_interrupt_line() -> None:
    buffer = io.StringIO()
    line = LineProgress(Console(file=buffer, force_terminal=False), interval_s=60)
    line.start(total=10, done=0, cached=0)
    line.update(done=3, failed=1, tokens=0, cost_usd=None)
    line.interrupted = True
    line.stop()
    assert buffer.getvalue() == ""
    assert line.interrupted_line() == (
        "interrupted: 2 of 10 calls saved; rerun the same command to resume"
    )


def test_sigint_cancels_the_pass_and_the_command_exits_130_with_one_line() -> None:
    tally = Tally("judging", "judgments")
    cancelled: list[bool] = []

    async def pass_of_calls() -> None:
        tally.start(total=1540, done=272, cached=272)
        signal.raise_signal(signal.SIGINT)
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(True)  # the pass's finally blocks run
            raise

    command = typer.Typer()

    @command.command()
    @handle_errors
    def judge() -> None:
        run_pass(pass_of_calls(), tally)

    result = CliRunner().invoke(command, [])
    assert cancelled == [True]
    assert result.exit_code == 130
    assert result.output.strip() == (
        "interrupted: 272 of 1,540 judgments saved; rerun the same command to resume"
    )
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_a_log_file_gets_lines_even_where_rich_is_told_it_is_a_terminal() -> None:
    forced = Console(file=io.StringIO(), force_terminal=True)  # as FORCE_COLOR=1 in CI
    assert isinstance(progress_for(forced, True, "judging", "judgments"), LineProgress)
    assert type(progress_for(forced, False, "judging", "judgments")) is Tally
