"""The Typer app and the one place that turns library errors into exit codes."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from functools import wraps
from typing import Any, TextIO, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from locoscore.cli._interrupt import Interrupted, signals_stop_cleanly
from locoscore.errors import InputError, LocoscoreError

app = typer.Typer(
    name="locoscore",
    help="Score conversational memory systems on LoCoMo: exact F1, BLEU-1 and an LLM judge.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2

F = TypeVar("F", bound=Callable[..., Any])


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    err_console.print(
        f"[yellow]warning:[/] {escape(str(message))}", highlight=False, soft_wrap=True
    )


def handle_errors(func: F) -> F:
    """Bad input: one red line, exit 2, no traceback. Other locoscore errors: exit 1.
    SIGINT / SIGTERM: one line saying what is saved, exit 130 / 143."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        warnings.showwarning = _show_warning
        try:
            with signals_stop_cleanly():
                return func(*args, **kwargs)
        except Interrupted as exc:
            err_console.print(escape(exc.line), highlight=False, soft_wrap=True)
            raise typer.Exit(exc.exit_code) from None
        except InputError as exc:
            err_console.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except LocoscoreError as exc:
            err_console.print(f"[red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
            raise typer.Exit(EXIT_FAILED) from None

    return wrapper  # type: ignore[return-value]


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        err_console.print("[red]interrupted[/]")
        sys.exit(130)
