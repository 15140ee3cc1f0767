"""A run rerun into a folder that has been judged (same answers, all from the cache) keeps the
judge's section of summary.json, as LoCoMo's folder composes its sections: judgments.jsonl and
scores.jsonl stay, so the summary and the report must still show the judge's figures."""

from __future__ import annotations

import json
import re
import shutil
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing._verdicts import reference_recall_score
from locoscore.testing.fake_provider import FakeConfig, FakeProvider
from locoscore.testing.longmemeval_fixture import write_fixture

BEAM_100K = Path(__file__).resolve().parents[2] / "../shared/data/beam/100K"


def echo_first_memory(prompt: str) -> str:
    match = re.search(r"^\[1\] \(session of [^)]*\) (.*)$", prompt, re.MULTILINE)
    return match.group(1)[:300] if match else "I do not know."


def _cli(*args: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CliRunner().invoke(app, list(args))


def _longmemeval(tmp_path: Path, fake: FakeProvider) -> tuple[Path, list[str]]:
    judge = ["--protocol", "binary", "--provider", "openai", "--model", "gpt-4o-2024-08-06"]
    return write_fixture(tmp_path / "s.json"), [*judge, "--base-url", fake.openai_url]


def _beam(tmp_path: Path, fake: FakeProvider) -> tuple[Path, list[str]]:
    if not BEAM_100K.exists():
        pytest.skip("BEAM 100K not at ../shared")
    root = tmp_path / "100K"
    shutil.copytree(BEAM_100K / "3", root / "3")  # one real conversation: 20 questions
    return root, ["--base-url", fake.url]


def _beam_verdict(prompt: str) -> int | str:
    from beam_helpers import rule

    return rule(prompt)


CASES: dict[str, tuple[Callable[..., tuple[Path, list[str]]], Callable[[str], Any], str]] = {
    # benchmark: (dataset and judge options, the fake judge's rule, the report's J heading)
    "longmemeval": (_longmemeval, reference_recall_score, "J, missing = wrong"),
    "beam": (_beam, _beam_verdict, "Mean of the ten abilities"),
}


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-rerun-0123456789abcdef")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-rerun-0123456789abcdef")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


@pytest.mark.parametrize("benchmark", CASES)
def test_run_judge_run_keeps_the_judge_section(tmp_path: Path, benchmark: str) -> None:
    make, verdict, heading = CASES[benchmark]
    config = FakeConfig(timeout_s=5.0, answer=echo_first_memory, verdict=verdict)
    out = tmp_path / "run"
    with FakeProvider(config) as fake:
        dataset, judge_options = make(tmp_path, fake)
        run = [
            "run", "--benchmark", benchmark, "--dataset", str(dataset), "--out", str(out),
            "--system", "bm25", "--top-k", "5", "--answer-provider", "openai-compatible",
            "--answer-model", "fake-answerer", "--answer-base-url", fake.openai_url,
            "--no-progress", "--skip-probe",
        ]  # fmt: skip
        first = _cli(*run)
        assert first.exit_code == 0, first.output
        judged = _cli(
            "judge", str(out / "predictions.jsonl"), "--benchmark", benchmark,
            "--dataset", str(dataset), "--out", str(out), *judge_options, "--runs", "1",
            "--no-progress",
        )  # fmt: skip
        assert judged.exit_code == 0, judged.output
        before = json.loads((out / "summary.json").read_text())
        judgments = (out / "judgments.jsonl").read_text()
        calls = fake.generation_calls
        again = _cli(*run)
        assert again.exit_code == 0, again.output
        assert fake.generation_calls == calls  # every answer came from the cache
    after = json.loads((out / "summary.json").read_text())
    assert "judge" in before
    assert after["judge"] == before["judge"]
    assert after["run"]["signature"] == before["run"]["signature"]  # served, fake kept
    assert (out / "judgments.jsonl").read_text() == judgments
    reported = _cli("report", str(out), "--benchmark", benchmark, "--dataset", str(dataset))
    assert reported.exit_code == 0, reported.output
    report = (out / "report.md").read_text()
    assert heading in report and before["judge"]["signature"] in report
