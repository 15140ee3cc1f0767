"""`locoscore serve`: bad input is one line and exit 2, before anything listens."""

from __future__ import annotations

import socket

from typer.testing import CliRunner

from locoscore.cli import app


def _serve(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["serve", *args])
    return result.exit_code, result.output.strip()


def test_an_unset_token_variable_is_bad_input(monkeypatch):
    monkeypatch.delenv("NO_SUCH_TOKEN_VAR", raising=False)
    code, output = _serve("--system", "bm25", "--token-env", "NO_SUCH_TOKEN_VAR")
    assert code == 2
    assert output == "error: --token-env NO_SUCH_TOKEN_VAR: the environment variable is not set"


def test_an_unknown_system_is_bad_input():
    code, output = _serve("--system", "nope", "--port", "0")
    assert code == 2
    assert output.startswith("error: --system nope: unknown system (known: ")


def test_an_unknown_system_option_is_bad_input():
    code, output = _serve("--system", "bm25", "--port", "0", "--system-option", "k3=1")
    assert code == 2
    assert output.startswith("error: --system-option k3: unknown option for system bm25")


def test_a_port_in_use_is_bad_input():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, output = _serve("--system", "bm25", "--port", str(port))
    assert code == 2
    assert (
        output == f"error: --host 127.0.0.1 --port {port}: cannot listen (Address already in use)"
    )
