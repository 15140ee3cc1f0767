from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
LOCOMO = SHARED / "data" / "locomo10.json"
PEERS = SHARED / "data" / "peers"

sys.path.insert(0, str(REPO / "bench"))


ERRATA = SHARED / "data" / "errata" / "locomo-audit-errors.json"

# Scheduling under xdist (`--dist loadgroup --no-loadscope-reorder`). A module's tests run on
# one worker, so its module-scoped fixtures are made once, not once per worker that gets one
# of its tests; a directory whose modules share a session fixture (the board's runs) is one
# group. The groups that hold minutes of setup start first, so neither worker waits on one
# at the end.
SHARED_FIXTURE_DIRS = frozenset({"board"})
SLOWEST_GROUPS_FIRST = ("letta", "mem0g", "board", "ray", "amem", "graphiti", "langmem")


def _group_of(item: pytest.Item) -> str:
    marked = item.get_closest_marker("xdist_group")
    if marked is not None:
        return str(marked.args[0] if marked.args else marked.kwargs["name"])
    if not item.path.is_relative_to(REPO / "tests"):
        return item.path.as_posix()
    where = item.path.relative_to(REPO / "tests")
    if where.parts[0] in SHARED_FIXTURE_DIRS:
        return where.parts[0]
    return where.with_suffix("").as_posix()


@pytest.hookimpl(tryfirst=True)  # before xdist appends the group to each node id
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    groups = {}
    for item in items:
        groups[item] = _group_of(item)
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(groups[item]))
    rank = {name: i for i, name in enumerate(SLOWEST_GROUPS_FIRST)}
    items.sort(key=lambda item: rank.get(groups[item], len(rank)))  # stable: else as collected


@pytest.fixture(autouse=True)
def _no_ambient_errata(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Gold errata change every report; a list in the environment or the user cache of the
    machine running the tests must not, so each test starts with neither."""
    monkeypatch.delenv("LOCOSCORE_ERRATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "empty-user-cache"))


@pytest.fixture(scope="session")
def errata_path() -> Path:
    if not ERRATA.exists():
        pytest.skip(f"gold errata not found at {ERRATA}")
    return ERRATA


@pytest.fixture(scope="session")
def locomo_path() -> Path:
    if not LOCOMO.exists():
        pytest.skip(f"real dataset not found at {LOCOMO}")
    return LOCOMO


@pytest.fixture(scope="session")
def dataset(locomo_path: Path) -> Any:
    from locoscore.benchmarks.locomo.data import load_dataset

    return load_dataset(locomo_path)


@pytest.fixture(scope="session")
def peers_dir() -> Path:
    if not PEERS.exists():
        pytest.skip(f"peer result files not found at {PEERS}")
    return PEERS


@pytest.fixture(scope="session")
def memobase_items(peers_dir: Path) -> list[dict[str, Any]]:
    raw = json.loads((peers_dir / "memobase_eval_0710_3000.json").read_text())
    return [item for key in sorted(raw, key=int) for item in raw[key]]


@pytest.fixture(scope="session")
def zep_raw(peers_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((peers_dir / "zep_locomo_grades.json").read_text())
    return data
