"""Results folders of several systems and protocols, made once per test session.

`folders`, LoCoMo on conv-30: bm25 with the extractive answerer; full-context and bm25
(top-k 10 and 3) with the fake provider's answerer; two of those judged binary by the same
fake judge, one judged with the rubric; a sample (`run --limit 40`); two folders with gold
errata recorded (the verified-gold view).

`made`, every benchmark: two LongMemEval runs (bm25 top-k 1 and 20, on the generated file)
and two BEAM runs (top-k 1 and 10, on two real 100K conversations), each judged, under
`runs/` with one LoCoMo run; beside them a copy of each top-k 1 run taken before its judge
(`unjudged/`) and the top-k 20 LongMemEval answers judged as a hypotheses file into a folder
of their own (`lme-answers`).
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing._verdicts import recall_score, reference_recall_score
from locoscore.testing.fake_provider import FakeConfig, FakeProvider
from locoscore.testing.longmemeval_fixture import write_fixture

TESTS = Path(__file__).resolve().parents[1]
BEAM_100K = TESTS.parent / "../shared/data/beam/100K"
sys.path.insert(0, str(TESTS / "benchmarks"))  # beam_helpers: the fake BEAM judge's verdicts

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


def echo_memories(prompt: str) -> str:
    """Every retrieved memory's text: more retrieval finds more gold."""
    found = re.findall(r"^\[\d+\] \(session of [^)]*\) (.*)$", prompt, re.MULTILINE)
    return " ".join(found)[:600] or "I do not know."


def verdict(prompt: str) -> int | str:
    """LongMemEval's prompts: graded by reference recall. BEAM's event matches: by
    `beam_helpers.rule`; its rubric items: by the share of the requirement's words the reply
    holds, on the asked scale (100 from 60 %, 50 from 30 %, else 0), so a run that retrieves
    more scores more."""
    from beam_helpers import _FENCED, _REQUIREMENT, rule

    requirement, reply = _REQUIREMENT.search(prompt), _FENCED.search(prompt)
    if requirement is not None and reply is not None:
        share = recall_score(requirement.group(1), reply.group(1))
        return 100 if share >= 60 else 50 if share >= 30 else 0
    if "First snippet (a reference event)" in prompt:
        return rule(prompt)
    return reference_recall_score(prompt)


def _answerer(fake: FakeProvider) -> list[str]:
    return ["--answer-provider", "openai-compatible", "--answer-model", "fake-answerer",
            "--answer-base-url", fake.openai_url, "--no-progress"]  # fmt: skip


def _lme_judge(answers: Path, dataset: Path, out: Path, fake: FakeProvider) -> None:
    cli("judge", str(answers), "--benchmark", "longmemeval", "--dataset", str(dataset),
        "--out", str(out), "--protocol", "binary", "--provider", "openai", "--model",
        "gpt-4o-2024-08-06", "--base-url", fake.openai_url, "--runs", "2",
        "--no-progress")  # fmt: skip


@pytest.fixture(scope="session")
def made(tmp_path_factory: pytest.TempPathFactory, locomo_path: Path) -> Iterator[dict[str, Path]]:
    root = tmp_path_factory.mktemp("board-benchmarks")
    lme = write_fixture(root / "longmemeval_s.json")
    beam = root / "beam" / "100K"
    for name in ("1", "5"):
        shutil.copytree(BEAM_100K / name, beam / name)
    folders: dict[str, Path] = {}
    with (
        pytest.MonkeyPatch.context() as mp,
        FakeProvider(FakeConfig(timeout_s=5.0, answer=echo_memories, verdict=verdict)) as fake,
    ):
        mp.setenv("OPENAI_API_KEY", "sk-test-board-0123456789")
        mp.setenv("ANTHROPIC_API_KEY", "sk-ant-test-board-0123456789")
        mp.delenv("OPENAI_BASE_URL", raising=False)
        mp.setenv("XDG_CACHE_HOME", str(root / "empty-user-cache"))
        for k in ("1", "20"):
            out = folders[f"lme-k{k}"] = root / "runs" / f"lme-k{k}"
            cli("run", "--benchmark", "longmemeval", "--dataset", str(lme), "--out", str(out),
                "--system", "bm25", "--top-k", k, *_answerer(fake))  # fmt: skip
            if k == "1":
                folders["lme-unjudged"] = _copy(out, root / "unjudged" / "lme-k1")
            _lme_judge(out / "predictions.jsonl", lme, out, fake)
        answers = shutil.copy(folders["lme-k20"] / "hypotheses.jsonl", root / "hypotheses.jsonl")
        folders["lme-answers"] = root / "lme-answers"
        _lme_judge(Path(answers), lme, folders["lme-answers"], fake)
        for k in ("1", "10"):
            out = folders[f"beam-k{k}"] = root / "runs" / f"beam-k{k}"
            cli("run", "--benchmark", "beam", "--dataset", str(beam), "--out", str(out),
                "--system", "bm25", "--top-k", k, "--skip-probe", *_answerer(fake))  # fmt: skip
            if k == "1":
                folders["beam-unjudged"] = _copy(out, root / "unjudged" / "beam-k1")
            cli("judge", str(out / "predictions.jsonl"), "--benchmark", "beam",
                "--dataset", str(beam), "--out", str(out), "--base-url", fake.url,
                "--runs", "1", "--no-progress")  # fmt: skip
        out = folders["locomo"] = root / "runs" / "locomo"
        cli("run", "--system", "bm25", "--out", str(out), "--dataset", str(locomo_path),
            "--conversations", CONVERSATION, "--answer-provider", "extractive",
            "--no-progress")  # fmt: skip
    yield folders
