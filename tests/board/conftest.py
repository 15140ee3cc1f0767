"""Results folders of several systems and protocols, made once per test session on conv-30.

bm25 with the extractive answerer; full-context and bm25 (top-k 10 and 3) with the fake
provider's answerer; two of those judged binary by the same fake judge, one judged with the
rubric; a sample (`run --limit 40`); two folders with gold errata recorded (the verified-gold
view).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

CONVERSATION = "conv-30"
SAMPLE_SIGNATURE = "sample:40/105@seed0:strat-cat"


def echo_first_memory(prompt: str) -> str:
    match = re.search(r"^\[1\] \(session of [^)]*\) (.*)$", prompt, re.MULTILINE)
    return match.group(1) if match else "Not mentioned in the conversation"


def cli(*args: str) -> None:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output


def _run(out: Path, dataset: Path, system: str, *extra: str) -> Path:
    cli("run", "--system", system, "--out", str(out), "--dataset", str(dataset),
        "--conversations", CONVERSATION, "--no-progress", *extra)  # fmt: skip
    return out


def _judge(folder: Path, dataset: Path, fake: FakeProvider, protocol: str) -> Path:
    cli("judge", str(folder / "predictions.jsonl"), "--out", str(folder), "--dataset",
        str(dataset), "--provider", "openai-compatible", "--model", "fake-judge", "--base-url",
        fake.openai_url, "--runs", "2", "--protocol", protocol, "--no-progress")  # fmt: skip
    return folder


def _copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("run_state.sqlite"))
    return target


@pytest.fixture(scope="session")
def folders(
    tmp_path_factory: pytest.TempPathFactory, locomo_path: Path, errata_path: Path
) -> Iterator[dict[str, Path]]:
    root = tmp_path_factory.mktemp("board-runs")
    with (
        pytest.MonkeyPatch.context() as mp,
        FakeProvider(FakeConfig(timeout_s=5.0, answer=echo_first_memory)) as fake,
    ):
        mp.setenv("OPENAI_API_KEY", "sk-test-board-0123456789")
        mp.delenv("OPENAI_BASE_URL", raising=False)
        mp.delenv("LOCOSCORE_ERRATA", raising=False)
        mp.setenv("XDG_CACHE_HOME", str(root / "empty-user-cache"))
        answerer = ["--answer-provider", "openai-compatible", "--answer-model", "fake-answerer",
                    "--answer-base-url", fake.openai_url]  # fmt: skip
        made: dict[str, Path] = {}
        made["bm25-extractive"] = _run(
            root / "bm25-extractive", locomo_path, "bm25", "--answer-provider", "extractive"
        )
        made["full-context"] = _run(root / "full-context", locomo_path, "full-context", *answerer)
        made["bm25-k10"] = _run(root / "bm25-k10", locomo_path, "bm25", *answerer)
        made["bm25-k3"] = _run(root / "bm25-k3", locomo_path, "bm25", "--top-k", "3", *answerer)
        for name in ("bm25-k10", "bm25-k3"):
            made[f"{name}-binary"] = _judge(
                _copy(made[name], root / f"{name}-binary"), locomo_path, fake, "binary"
            )
        made["full-context-rubric"] = _judge(
            _copy(made["full-context"], root / "full-context-rubric"), locomo_path, fake, "rubric"
        )
        made["bm25-k10-sample"] = _run(
            root / "bm25-k10-sample", locomo_path, "bm25", "--limit", "40", *answerer
        )
        for name in ("bm25-extractive", "bm25-k3"):
            target = _copy(made[name], root / f"{name}-errata")
            cli("report", str(target), "--errata", str(errata_path), "--dataset", str(locomo_path))
            made[f"{name}-errata"] = target
        yield made
