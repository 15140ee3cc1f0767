"""The board and every benchmark's report and comparison, laid out by headless Chromium at
1,280 px: nothing runs off the page, no table is wider than the page column, and no text of
a chart overlaps another or leaves its chart (see browser_layout for what is measured)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from browser_layout import CHROMIUM, SKIP_REASON, WIDTH, layout
from typer.testing import CliRunner

from locoscore.cli import app

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON)


def _cli(*args: str) -> None:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output


def _clean(page: Path, work: Path) -> dict[str, int]:
    measured = layout(page, work)
    assert measured["width"] == WIDTH
    assert measured["found"] == [], page
    return {"charts": measured["charts"], "tables": measured["tables"]}


JUDGED = ["lme-k1", "lme-k20", "beam-k1", "beam-k10", "locomo"]


@pytest.mark.parametrize(
    ("names", "tables"),
    [(JUDGED, 7), ([*JUDGED, "lme-unjudged", "beam-unjudged", "lme-answers"], 11)],
    ids=["judged", "with-unjudged-and-an-answers-file"],
)
def test_the_board_of_every_benchmark_fits_1280_px_and_no_chart_text_overlaps(
    made: dict[str, Path], tmp_path: Path, names: list[str], tables: int
) -> None:
    _cli("board", *(str(made[n]) for n in names), "--out", str(tmp_path / "board"))
    counts = _clean(tmp_path / "board" / "board.html", tmp_path / "check")
    # the judged groups (LongMemEval, BEAM, LoCoMo) each draw two charts; each group has
    # two tables, beside the one of how the groups differ
    assert counts == {"charts": 6, "tables": tables}


def test_each_benchmarks_report_and_comparison_fit_1280_px(
    made: dict[str, Path], folders: dict[str, Path], tmp_path: Path
) -> None:
    lme = Path(shutil.copytree(made["lme-k20"], tmp_path / "lme-k20"))
    _cli("report", str(lme))
    pages = {
        "longmemeval report": lme / "report.html",
        "beam report": made["beam-k10"] / "report.html",
        "locomo report": made["locomo"] / "report.html",
        "locomo judged report": folders["bm25-k10-binary"] / "report.html",
    }
    pairs = {
        "longmemeval": (made["lme-k1"], made["lme-k20"]),
        "beam": (made["beam-k1"], made["beam-k10"]),
        "locomo": (folders["bm25-k10-binary"], folders["bm25-k3-binary"]),
    }
    for name, (a, b) in pairs.items():
        _cli("compare", str(a), str(b), "--out", str(tmp_path / name))
        pages[f"{name} compare"] = tmp_path / name / "compare.html"
    counts = {name: _clean(page, tmp_path / "check" / name) for name, page in pages.items()}
    assert counts["locomo judged report"]["charts"] > 0 and counts["locomo compare"]["charts"] > 0
    assert all(c["tables"] > 0 for c in counts.values())


def test_the_example_benchmarks_report_board_and_comparison_fit_1280_px(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A third-party benchmark (examples/tiny_benchmark.py) gets pages that fit as well."""
    monkeypatch.chdir(Path(__file__).resolve().parents[2] / "examples")
    a, b = tmp_path / "a", tmp_path / "b"
    common = ["--benchmark", "python:tiny_benchmark:BENCHMARK", "--system", "bm25",
              "--answer-provider", "extractive", "--top-k", "1", "--no-progress"]  # fmt: skip
    _cli("run", *common, "--out", str(a))
    _cli("run", *common, "--system-option", "granularity=session", "--out", str(b))
    _cli("report", str(a))
    _cli("board", str(a), str(b), "--out", str(tmp_path / "board"))
    _cli("compare", str(a), str(b), "--out", str(tmp_path / "compare"))
    pages = {
        "report": a / "report.html",
        "board": tmp_path / "board" / "board.html",
        "compare": tmp_path / "compare" / "compare.html",
    }
    counts = {name: _clean(page, tmp_path / "check" / name) for name, page in pages.items()}
    assert all(c["tables"] > 0 for c in counts.values()), counts
