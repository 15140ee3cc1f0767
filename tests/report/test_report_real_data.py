"""Reports and comparisons on real peer result files (1,540 questions, 10 conversations)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.benchmarks.locomo.parts import PARTS
from locoscore.benchmarks.locomo.report_parts import load_results
from locoscore.cli import app
from locoscore.generic.paired_folders import compare_results

runner = CliRunner()


def _score(peer: Path, dataset: Path, out: Path) -> Path:
    result = runner.invoke(app, ["score", str(peer), "--dataset", str(dataset), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def zep_dir(tmp_path_factory: pytest.TempPathFactory, peers_dir: Path, locomo_path: Path) -> Path:
    return _score(peers_dir / "zep_locomo_grades.json", locomo_path, tmp_path_factory.mktemp("zep"))


def test_report_on_a_real_peer_file_has_conversation_clustered_intervals(zep_dir: Path) -> None:
    assert runner.invoke(app, ["report", str(zep_dir)]).exit_code == 0
    summary = json.loads((zep_dir / "summary.json").read_text())
    f1 = summary["report"]["metrics"]["f1_mem0"]
    assert f1["overall"]["n"] == 1540
    assert f1["overall"]["mean"] == pytest.approx(
        100 * summary["lexical"]["mem0"]["metrics"]["f1"]["overall"]["mean"]
    )
    assert sorted(f1["by_category"]) == ["1", "2", "3", "4"]
    boot, clustered = f1["overall"]["ci95_bootstrap"], f1["overall"]["ci95_clustered"]
    assert boot["low"] < f1["overall"]["mean"] < boot["high"]
    assert clustered["low"] < f1["overall"]["mean"] < clustered["high"]
    md = (zep_dir / "report.md").read_text()
    assert "This run has no adversarial questions" in md  # its locomo overall lacks category 5
    assert "1540 matched" in md


def test_compare_pairs_two_real_systems_on_all_1540_questions(
    zep_dir: Path, tmp_path: Path, peers_dir: Path, locomo_path: Path
) -> None:
    memobase = _score(peers_dir / "memobase_eval_0710_3000.json", locomo_path, tmp_path / "m")
    result = compare_results(PARTS, load_results(zep_dir), load_results(memobase))
    assert result.paired == 1540 and not result.only_in_a and not result.only_in_b
    assert result.gold_differs == []
    f1 = next(m for m in result.metrics if m.metric.column == "f1_mem0")
    assert f1.overall.difference == pytest.approx(f1.overall.mean_b - f1.overall.mean_a)
    assert sum(cell.n for cell in f1.by_category.values()) == 1540
