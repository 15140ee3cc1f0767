from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from locoscore.systems.registry import SystemContext, make_system
from locoscore.systems.serve import MemoryServer

# The scripted fault server (fault_server.py) is imported by the tests from here.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def context(tmp_path: Path) -> SystemContext:
    return SystemContext(state_dir=tmp_path / "state")


@pytest.fixture
def bm25_server(context: SystemContext) -> Iterator[MemoryServer]:
    """`bm25` (default options) served over the contract on a random port."""
    with MemoryServer(make_system("bm25", {}, context)) as server:
        yield server
