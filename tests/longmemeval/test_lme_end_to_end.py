"""run -> judge -> report -> compare on the generated fixture, two systems, one fake
provider answering (echo of the first memory) and judging (reference recall)."""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing._verdicts import reference_recall_score
from locoscore.testing.fake_provider import FakeConfig, FakeProvider
from locoscore.testing.longmemeval_fixture import write_fixture


def echo_every_memory(prompt: str) -> str:
    """The fake answerer: every retrieved memory's text, so more retrieval finds more gold."""
    return " ".join(
        re.findall(r"^\[\d+\] \(session of .*?\) (?:user|assistant): (.*)$", prompt, re.M)
    )


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    config = FakeConfig(timeout_s=5.0, answer=echo_every_memory, verdict=reference_recall_score)
    with FakeProvider(config) as provider:
        yield provider


def _cli(*args: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CliRunner().invoke(app, list(args))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_run_judge_report_compare(fake: FakeProvider, tmp_path: Path) -> None:
    dataset = write_fixture(tmp_path / "longmemeval_s.json")
    folders = []
    for name, top_k in (("a", "1"), ("b", "20")):
        out = tmp_path / name
        ran = _cli(
            "run", "--benchmark", "longmemeval", "--dataset", str(dataset), "--out", str(out),
            "--system", "bm25", "--top-k", top_k, "--answer-provider", "openai-compatible",
            "--answer-model", "fake-answerer", "--answer-base-url", fake.openai_url,
            "--no-progress",
        )  # fmt: skip
        assert ran.exit_code == 0, ran.output
        judged = _cli(
            "judge", str(out / "predictions.jsonl"), "--benchmark", "longmemeval",
            "--dataset", str(dataset), "--out", str(out), "--protocol", "binary",
            "--provider", "openai", "--model", "gpt-4o-2024-08-06",
            "--base-url", fake.openai_url, "--runs", "2", "--no-progress",
        )  # fmt: skip
        assert judged.exit_code == 0, judged.output
        folders.append(out)
    # the official hypothesis file the run wrote is judged to the same J
    official = _cli(
        "judge", str(folders[1] / "hypotheses.jsonl"), "--benchmark", "longmemeval",
        "--dataset", str(dataset), "--out", str(tmp_path / "official"), "--protocol",
        "binary", "--provider", "openai", "--model", "gpt-4o-2024-08-06",
        "--base-url", fake.openai_url, "--runs", "2", "--no-progress",
    )  # fmt: skip
    assert official.exit_code == 0, official.output

    summaries = [json.loads((f / "summary.json").read_text()) for f in folders]
    # LongMemEval excludes no type from its overall: no `adv:` part in either signature
    run_signature = json.loads((folders[1] / "run.json").read_text())["signature"]
    assert "|bench:longmemeval-unknown@" in run_signature and "|adv:" not in run_signature
    assert summaries[1]["judge"]["signature"].endswith("|runs:2|std:sample|version:0.1.0")
    strict = [s["judge"]["missing_counts_as_wrong"]["overall"]["accuracy"] for s in summaries]
    again = json.loads((tmp_path / "official" / "summary.json").read_text())["judge"]
    assert (
        again["missing_counts_as_wrong"]["overall"]
        == summaries[1]["judge"]["missing_counts_as_wrong"]["overall"]
    )
    # J per question from scores.jsonl reproduces the overall figure
    rows = [json.loads(line) for line in (folders[1] / "scores.jsonl").read_text().splitlines()]
    assert len(rows) == 10
    assert strict[1] == round(100 * sum(r["j"] or 0.0 for r in rows) / 10, 4)

    reported = _cli("report", str(folders[1]))  # the folder says which benchmark it holds
    assert reported.exit_code == 0, reported.output
    report = (folders[1] / "report.md").read_text()
    assert "J, missing = wrong" in report and "Retrieval (official definitions)" in report
    assert "not comparable, not ranked" in report and "OmniMemEval" in report
    wrong = _cli("report", str(folders[1]), "--benchmark", "locomo")
    assert wrong.exit_code == 2 and "holds longmemeval results" in " ".join(wrong.output.split())

    compared = _cli("compare", str(folders[0]), str(folders[1]), "--out", str(tmp_path / "c"))
    assert compared.exit_code == 0, compared.output
    groups = json.loads((tmp_path / "c" / "compare.json").read_text())["groups"]
    assert groups["overall"]["count"] == 10 and groups["abstention"]["count"] == 4
    assert groups["overall"]["a"] == strict[0] and groups["overall"]["b"] == strict[1]
    assert groups["overall"]["difference"] == pytest.approx(strict[1] - strict[0], abs=1e-3)
    assert strict[0] != strict[1]  # top-1 and top-20 retrieval answer differently
