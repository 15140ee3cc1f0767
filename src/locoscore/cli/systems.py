"""`locoscore systems install NAME`: build a system's own pinned environment ahead of a run."""

from __future__ import annotations

import time

import typer

from locoscore.cli._app import command_group, console, handle_errors
from locoscore.systems.environments import built_python, ensure_environment, environment_dir
from locoscore.systems.registry import SYSTEM_ENVIRONMENTS, environment_spec

systems_app = command_group("systems", "Systems that run in an environment of their own (Mem0g).")


@systems_app.command("install")
@handle_errors
def install(
    name: str = typer.Argument(
        ..., help=f"The system's environment: {', '.join(sorted(SYSTEM_ENVIRONMENTS))}."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Hide pip's output."),
) -> None:
    """Build the system's pinned virtual environment (needs PyPI), once; prints its Python.

    Writes the environment under the user cache, in envs/NAME-HASH (~/.cache/locoscore, or
    $XDG_CACHE_HOME/locoscore); nothing in the current folder. A run builds it too when it is
    missing."""
    spec = environment_spec(name)
    if built_python(spec) is None:
        console.print(f"building {environment_dir(spec)} (pip, from PyPI) …", highlight=False)
    started = time.perf_counter()
    python = ensure_environment(spec, quiet=quiet)
    seconds = time.perf_counter() - started
    typer.echo(f"{name}: {python} ({seconds:.0f} s)")
