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

from locoscore._version import __version__
from locoscore.benchmarks import BENCHMARKS
from locoscore.cli._interrupt import Interrupted, signals_stop_cleanly
from locoscore.errors import InputError, LocoscoreError


def _flags_show_no_type() -> None:
    """Rich help in typer 0.2x labels every flag (`--batch`, `--help`) `<bool>`, as if it
    took a value; a flag takes none, so it is shown with no type (plain help already does)."""
    option = getattr(getattr(typer, "core", None), "TyperOption", None)
    shown = getattr(option, "display_type_rich", None)
    if option is None or shown is None or getattr(shown, "flags_untyped", False):
        return

    def display_type_rich(self: Any, ctx: Any) -> Any:
        return None if getattr(self, "is_flag", False) else shown(self, ctx)

    display_type_rich.flags_untyped = True  # type: ignore[attr-defined]
    option.display_type_rich = display_type_rich


_flags_show_no_type()


def benchmark_titles() -> str:
    """The registered benchmarks as people name them (`A, B and C`: each description's
    words before its first parenthesis)."""
    titles = list(dict.fromkeys(b.description.split(" (")[0] for b in BENCHMARKS.values()))
    return ", ".join(titles[:-1]) + f" and {titles[-1]}" if len(titles) > 1 else titles[0]


APP_HELP = (
    f"Score conversational memory systems on {benchmark_titles()} (or your own benchmark): "
    "token F1 and BLEU-1, an LLM judge, reports, a board and paired comparisons."
)

app = typer.Typer(
    name="locoscore",
    help=APP_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def command_group(name: str, help: str) -> typer.Typer:
    """`locoscore NAME SUBCOMMAND`: a group of commands (bare `locoscore NAME` prints its
    help)."""
    group = typer.Typer(help=help, no_args_is_help=True)
    app.add_typer(group, name=name)
    return group


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"locoscore {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    # no docstring: Typer would show it instead of APP_HELP, which the registry builds
    return None


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


def print_signatures(signatures: list[str]) -> None:
    """Each signature alone on its line, never wrapped or cut at the terminal's width (nor
    at 80 columns when piped), so it can be copied whole."""
    for signature in signatures:
        console.print(signature, soft_wrap=True, highlight=False, markup=False)


def report_dropped(dropped: list[str], out: object) -> None:
    """What `--replace` removed, on one line (nothing when the folder held no other input)."""
    if dropped:
        err_console.print(
            f"replaced: dropped {', '.join(dropped)} from {escape(str(out))}",
            highlight=False,
            soft_wrap=True,
        )


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        err_console.print("[red]interrupted[/]")
        sys.exit(130)
