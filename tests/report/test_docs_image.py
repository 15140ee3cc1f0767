"""The README's chart is what the tool draws for the bundled example (regenerate if it drifts:
`locoscore score examples/predictions.jsonl --out OUT && locoscore report OUT --svg CHARTS`,
then copy CHARTS/categories-f1_locomo.svg to docs/images/report-f1-locomo.svg)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from locoscore.cli import app

REPO = Path(__file__).resolve().parents[2]
IMAGE = REPO / "docs" / "images" / "report-f1-locomo.svg"


def test_readme_chart_is_the_tools_output_for_the_example(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "example"
    example = str(REPO / "examples" / "predictions.jsonl")
    assert runner.invoke(app, ["score", example, "--out", str(out)]).exit_code == 0
    charts = tmp_path / "charts"
    assert runner.invoke(app, ["report", str(out), "--svg", str(charts)]).exit_code == 0
    drawn = (charts / "categories-f1_locomo.svg").read_text(encoding="utf-8")
    assert drawn == IMAGE.read_text(encoding="utf-8")
    assert drawn.startswith('<svg xmlns="http://www.w3.org/2000/svg" ')
