"""The command line's side of a benchmark's command (`benchmarks.calls.Terminal`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from locoscore.benchmarks.calls import Terminal
from locoscore.cli._app import console, err_console, report_dropped
from locoscore.cli._interrupt import run_pass
from locoscore.results.identity import InputIdentity


def _claim(out: Path, ours: InputIdentity, *, replace: bool, dry_run: bool = False) -> None:
    """The folder guard: refuse a folder of other input (or, with --replace, empty it)."""
    from locoscore.results.identity import claim_folder
    from locoscore.run.store import forget_run

    dropped = claim_folder(out, ours, replace=replace, dry_run=dry_run, forget_run=forget_run)
    report_dropped(dropped, out)


def _progress(enabled: bool, verb: str, noun: str) -> Any:
    from locoscore.llm.progress import progress_for

    return progress_for(err_console, enabled, verb, noun)


def _estimate(*args: Any, **kwargs: Any) -> None:
    from locoscore.cli._judge_options import print_estimate

    print_estimate(*args, **kwargs)


def terminal() -> Terminal:
    return Terminal(console, err_console, run_pass, _progress, _claim, _estimate)


def quiet_terminal(results: list[Any]) -> Terminal:
    """A terminal that prints nothing and keeps what each pass returned (`results`): a
    dry run asked for its count, not shown."""
    quiet = Console(quiet=True)

    def run_and_keep(coroutine: Any, tally: Any = None) -> Any:
        result = run_pass(coroutine, tally)
        results.append(result)
        return result

    return Terminal(quiet, quiet, run_and_keep, _progress, _claim, lambda *a, **k: None)
