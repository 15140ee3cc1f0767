"""`locoscore serve`: a built-in memory system behind the HTTP contract."""

from __future__ import annotations

import os
import signal
import tempfile
import threading
import warnings
from pathlib import Path
from types import FrameType

import typer

from locoscore.cli._app import app, handle_errors
from locoscore.errors import InputError
from locoscore.systems.context import SystemContext
from locoscore.systems.http_contract import CONTRACT_VERSION
from locoscore.systems.options import parse_option_pairs
from locoscore.systems.registry import make_system
from locoscore.systems.serve import MemoryServer

DEFAULT_PORT = 8400
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _token(token_env: str | None) -> str | None:
    if token_env is None:
        return None
    token = os.environ.get(token_env)
    if not token:
        raise InputError(f"--token-env {token_env}: the environment variable is not set")
    return token


def _wait_for_stop() -> None:
    """Until Ctrl-C or SIGTERM (how a sidecar is stopped)."""
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while not stop.wait(0.2):
            pass
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


@app.command("serve")
@handle_errors
def serve(
    system: str = typer.Option(..., "--system", help="A built-in system: bm25, embedding, …"),
    system_option: list[str] = typer.Option(
        [], "--system-option", help="KEY=VALUE for the served system (repeatable)."
    ),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(
        DEFAULT_PORT, "--port", min=0, max=65535, help="Port; 0 picks a free one."
    ),
    token_env: str | None = typer.Option(
        None, "--token-env", help="Require `Authorization: Bearer $VAR` on every request."
    ),
    state_dir: Path | None = typer.Option(
        None, "--state-dir", help="Where the system keeps caches/stores (default: a temp dir)."
    ),
) -> None:
    """Serve a memory system over the HTTP contract until Ctrl-C; prints `listening URL`.

    Writes nothing but the system's own files, into --state-dir (default: a temporary
    folder, removed at exit)."""
    token = _token(token_env)
    if host not in _LOOPBACK and token is None:
        warnings.warn(
            f"serving on {host} without --token-env: anyone who can reach the port can read "
            f"and change the stored conversations",
            stacklevel=1,
        )
    options = parse_option_pairs(system_option)
    with tempfile.TemporaryDirectory(prefix="locoscore-serve-") as scratch:
        context = SystemContext(state_dir=state_dir or Path(scratch))
        memory = make_system(system, options, context)
        if memory.reference is not None:  # behind `--system http` it would pass as a memory
            raise InputError(
                f"--system {system}: the {memory.reference}, a reference system: it is run "
                f"as `locoscore run --system {system}`, not served"
            )
        try:
            server = MemoryServer(memory, host=host, port=port, token=token).start()
        except OSError as exc:
            raise InputError(
                f"--host {host} --port {port}: cannot listen ({exc.strerror})"
            ) from None
        try:
            typer.echo(f"listening {server.url}")
            typer.echo(f"serving {system} over {CONTRACT_VERSION}; Ctrl-C stops", err=True)
            _wait_for_stop()
        finally:
            server.stop()
