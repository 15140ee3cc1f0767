"""The Letta server: its pinned environment, and the process locoscore starts and stops.

Letta's last release that runs on SQLite (0.11.7; later servers need Postgres) pins libraries
that clash with locoscore's other extras, so it lives in a virtual environment of its own
(`environments.ensure_environment`). Locoscore starts `letta server` from it on a free
loopback port with HOME pointed into the run's state folder: Letta keeps its SQLite database
under `~/.letta`, so the run's agents persist there (resume) and nothing is written to the
user's home. The server gets no API key and no provider variables: its model calls go
through locoscore's metering proxy, which adds the key.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from locoscore.errors import InputError
from locoscore.systems.environments import (
    EnvironmentSpec,
    built_python,
    ensure_environment,
    environment_dir,
)

LETTA_VERSION = "0.11.7"
REQUIREMENTS = (f"letta[server,sqlite]=={LETTA_VERSION}", "mcp[cli]<1.17", "pydantic<2.13")
# Letta runs none of locoscore's code: its environment holds Letta's requirements only.
ENVIRONMENT = EnvironmentSpec(
    "letta", REQUIREMENTS, "locoscore systems install letta", with_locoscore=False
)
HEALTH_PATH = "/v1/health/"
# Variables the server process keeps from locoscore's environment (no keys, no provider
# settings that would reroute or enable Letta's own providers, no telemetry DSN).
_KEPT = ("PATH", "LANG", "LC_ALL", "TMPDIR", "TZ", "SYSTEMROOT")


def letta_python(explicit: str | None) -> Path:
    """The Python of the Letta environment: `python=` when given, else the pinned environment
    under the user cache (built on first use: about 1 GB, minutes)."""
    if explicit:
        python = Path(explicit)
        if not python.exists():
            raise InputError(f"--system-option python={explicit}: no such file")
        return python
    if built_python(ENVIRONMENT) is None:
        # Minutes of silence otherwise: say once what is happening and where.
        folder = environment_dir(ENVIRONMENT)
        print(
            f"locoscore: building the Letta {LETTA_VERSION} environment in {folder} "
            "(once; about 1 GB from PyPI)",
            file=sys.stderr,
            flush=True,
        )
    return ensure_environment(ENVIRONMENT)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def server_version(url: str, timeout_s: float = 10.0) -> str:
    """The version a running Letta server reports (InputError when it does not answer)."""
    where = f"--system letta: the server at {url}"
    try:
        reply = httpx.get(url.rstrip("/") + HEALTH_PATH, timeout=timeout_s)
    except httpx.HTTPError:
        raise InputError(f"{where} is unreachable") from None
    if reply.status_code != 200:
        raise InputError(f"{where}: {HEALTH_PATH} answered HTTP {reply.status_code}")
    try:
        return str(reply.json()["version"])
    except (ValueError, KeyError, TypeError):
        raise InputError(f"{where}: {HEALTH_PATH} is not Letta's health reply") from None


class LettaProcess:
    """`letta server` from the environment's Python, on a free loopback port."""

    def __init__(self, python: Path, home: Path, startup_timeout_s: float) -> None:
        self.python = python
        self.home = home
        self.startup_timeout_s = startup_timeout_s
        self.url = ""
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        self.home.mkdir(parents=True, exist_ok=True)
        port = free_port()
        env = {k: os.environ[k] for k in _KEPT if k in os.environ}
        env["HOME"] = str(self.home)
        log = (self.home / "letta-server.log").open("ab")
        # `letta server`, without relying on the console script's path.
        command = [str(self.python), "-c", "from letta.main import app; app()", "server"]
        self._process = subprocess.Popen(
            [*command, "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            # Letta writes its OpenAPI schema (openapi_letta.json) into its working folder
            # at every start: keep it in the run, not in the user's folder.
            cwd=self.home,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        log.close()
        self.url = f"http://127.0.0.1:{port}"
        self._wait_ready()
        return self.url

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        assert self._process is not None
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise InputError(
                    f"--system letta: the Letta server exited ({self._process.returncode}) "
                    f"at start; see {self.home / 'letta-server.log'}"
                )
            try:
                if httpx.get(self.url + HEALTH_PATH, timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.stop()
        raise InputError(
            f"--system letta: the Letta server did not answer within "
            f"{self.startup_timeout_s:g} s; see {self.home / 'letta-server.log'}"
        )

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
