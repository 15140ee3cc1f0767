from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from locoscore.systems.context import SystemContext
from locoscore.systems.registry import make_system
from locoscore.systems.serve import MemoryServer

# The scripted fault server (fault_server.py) and the deliberately broken systems
# (broken_systems.py) are imported by the tests from here.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def context(tmp_path: Path) -> SystemContext:
    return SystemContext(state_dir=tmp_path / "state")


@pytest.fixture
def bm25_server(context: SystemContext) -> Iterator[MemoryServer]:
    """`bm25` (default options) served over the contract on a random port."""
    with MemoryServer(make_system("bm25", {}, context)) as server:
        yield server


@pytest.fixture
def served_by_the_cli() -> Iterator[str]:
    """`locoscore serve --system bm25 --port 0` in its own process; yields its URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "locoscore", "serve", "--system", "bm25", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("listening http://127.0.0.1:"), line + process.stderr.read()
        yield line.split()[1]
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0  # a sidecar stops cleanly on SIGTERM
