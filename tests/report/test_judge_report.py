"""score -> judge (fake provider) -> report: J tables, protocol labels and parity with the judge."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "predictions.jsonl"
runner = CliRunner()


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-report-0000")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    with FakeProvider(FakeConfig(latency_s=0.0, timeout_s=5.0)) as provider:
        yield provider


def _judged_folder(fake: FakeProvider, out: Path, protocol: str) -> dict[str, object]:
    assert runner.invoke(app, ["score", str(EXAMPLE), "--out", str(out)]).exit_code == 0
    judged = runner.invoke(
        app,
        [
            "judge",
            str(EXAMPLE),
            "--out",
            str(out),
            "--base-url",
            fake.url,
            "--protocol",
            protocol,
            "--runs",
            "3",
            "--no-progress",
            "--timeout",
            "2",
        ],
    )
    assert judged.exit_code == 0, judged.output
    reported = runner.invoke(app, ["report", str(out)])
    assert reported.exit_code == 0, reported.output
    summary: dict[str, object] = json.loads((out / "summary.json").read_text())
    return summary


def test_binary_judge_report_compares_with_mem0_paper_j(fake: FakeProvider, tmp_path: Path) -> None:
    out = tmp_path / "run"
    summary = _judged_folder(fake, out, "binary")
    for name in ("report.md", "report.html", "scores.csv", "summary.json"):
        assert (out / name).exists()
    judge, stats = summary["judge"], summary["report"]  # type: ignore[index]
    # the report's run-level numbers agree with the judge's own aggregation (which the judge
    # rounds to 4 decimals, so a relative tolerance would fail on small means)
    runs = judge["run_level"]["per_run_means"]
    assert stats["judge"]["per_run_means"] == pytest.approx(runs, abs=1e-4)
    overall = judge["overall"]["mean"]
    assert stats["metrics"]["j_mean"]["overall"]["mean"] == pytest.approx(overall, abs=1e-4)
    assert stats["judge"]["agreement"]["name"] == "Fleiss' kappa"
    md = (out / "report.md").read_text()
    section = md.split("## LLM judge (J) against published baselines")[1].split("\n## ")[0]
    assert "| **This run** |" in section and "| Mem0 |" in section
    assert "scales differ" not in section
    assert f"judge: {judge['signature']}" in md
    assert 'id="fig-j-distribution"' in (out / "report.html").read_text()


def test_rubric_judge_report_says_the_scales_differ(fake: FakeProvider, tmp_path: Path) -> None:
    out = tmp_path / "run"
    summary = _judged_folder(fake, out, "rubric")
    md = (out / "report.md").read_text()
    assert "The scales differ" in md
    assert summary["report"]["judge"]["agreement"]["name"].startswith("Krippendorff")  # type: ignore[index]
