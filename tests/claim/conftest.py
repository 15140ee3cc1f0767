"""Runs for the claim-card tests: real `locoscore run`s on LoCoMo's released file, one
stratified sample of 60 questions (every test folder holds the same question set)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.cli import app

LIMIT = "60"

# A memory that keeps nothing: search returns no item. `items_in` is what it reports holding.
EMPTY = """
class Empty:
    def __init__(self, options):
        pass

    async def reset(self, conversation_id):
        pass

    async def add(self, session):
        return None

    async def search(self, query):
        return []
"""

STORES_NOTHING = (
    EMPTY.replace("class Empty:", "class StoresNothing:")
    + """
    def items_in(self, conversation_id):
        return 0
"""
)

# Answers every question with its gold (read from the data file), retrieving nothing while
# it says it holds items: the best score on the board, from a system that is no memory at
# all. (One that named no items would have its retrieval "not reported", not failed.)
CHEATER = """
import json

GOLD = {}
for sample in json.load(open(DATA, encoding="utf-8")):
    for index, qa in enumerate(sample["qa"]):
        GOLD[sample["sample_id"] + "#" + str(index)] = str(qa.get("answer", ""))


class Cheater:
    answers_itself = True

    def __init__(self, options):
        pass

    async def reset(self, conversation_id):
        pass

    async def add(self, session):
        return None

    async def search(self, query):
        return {"items": [], "answer": GOLD[query.question_id]}

    def items_in(self, conversation_id):
        return 5
"""


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def run_system(locomo_path: Path, out: Path, system: str, *extra: str) -> Path:
    code, output = invoke(
        "run", "--system", system, "--answer-provider", "extractive", "--dataset",
        str(locomo_path), "--limit", LIMIT, "--out", str(out), "--no-progress",
        "--skip-probe", *extra,
    )  # fmt: skip
    assert code == 0, output
    return out


FLAKY = """

class Flaky(Empty):
    async def search(self, query):
        if query.question_id in ("conv-26#79", "conv-26#96"):  # 2 of the sample's 60
            raise ValueError("index corrupted")
        return ["something"]
"""


@pytest.fixture(scope="session")
def plugins(tmp_path_factory: pytest.TempPathFactory, locomo_path: Path) -> Iterator[Path]:
    """The test plugins, importable as `python:claim_plugins:<Class>`."""
    home = tmp_path_factory.mktemp("plugins")
    cheater = CHEATER.replace("open(DATA,", f"open({json.dumps(str(locomo_path))},")
    source = EMPTY + STORES_NOTHING + FLAKY + cheater
    (home / "claim_plugins.py").write_text(source, encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sys, "path", [str(home), *sys.path])
        yield home
    sys.modules.pop("claim_plugins", None)


@pytest.fixture(scope="session")
def bm25_run(locomo_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_system(locomo_path, tmp_path_factory.mktemp("bm25") / "run", "bm25")


@pytest.fixture(scope="session")
def no_memory_run(locomo_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference floor: the same sample answered without any memory."""
    return run_system(locomo_path, tmp_path_factory.mktemp("no-memory") / "run", "no-memory")


@pytest.fixture(scope="session")
def empty_run(plugins: Path, locomo_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("empty") / "run"
    return run_system(locomo_path, out, "python:claim_plugins:Empty")


@pytest.fixture(scope="session")
def flaky_run(plugins: Path, locomo_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two of the sample's questions fail in search (the run says so: exit 1)."""
    out = tmp_path_factory.mktemp("flaky") / "run"
    code, output = invoke(
        "run", "--system", "python:claim_plugins:Flaky", "--answer-provider", "extractive",
        "--dataset", str(locomo_path), "--limit", LIMIT, "--out", str(out), "--no-progress",
        "--skip-probe",
    )  # fmt: skip
    assert code == 1, output
    return out
