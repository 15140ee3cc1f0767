"""A memos file judged by locoscore: the report shows both J's, each labelled."""

from __future__ import annotations

import json
from pathlib import Path

from audit_helpers import write_dataset, write_probe_file
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing.fake_provider import FakeProvider, reference_recall_score


def test_judge_on_a_memos_file_reports_recorded_j_beside_its_own(
    fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.verdict = reference_recall_score
    dataset = write_dataset(tmp_path / "locomo.json", samples=1, questions=6)
    memos = write_probe_file(tmp_path / "eval_results.json", dataset)
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["judge", str(memos), "--out", str(out), "--dataset",
                                      str(dataset), "--base-url", fake.url, "--runs", "2",
                                      "--protocol", "binary", "--no-progress"])  # fmt: skip
    assert result.exit_code == 0, result.output
    recorded = json.loads((out / "summary.json").read_text())["judge"]["input"]["recorded_judge"]
    # judgment_1 is true for even qa indexes (3 of 0-5), judgment_2 for multiples of 3 (2 of 6)
    assert recorded["overall"]["per_run_means"] == [50.0, 33.3333]
    report = (out / "report.md").read_text()
    section = report.split("### J recorded by the source harness")[1].split("###")[0]
    assert "| locoscore (binary, claude-sonnet-4-6; mean ± std over runs) |" in section
    assert "| Recorded by the source harness (judge model not stated in the file, 2 run(s)" in (
        section
    )
    assert "41.67 ± 11.79" in section  # mean of 50 and 33.33, sample std
