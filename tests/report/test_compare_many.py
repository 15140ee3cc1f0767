"""`locoscore compare A B C`: each folder against A, every test Holm-adjusted across the
comparisons; the confound warnings name the folder they concern."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from report_helpers import add_judge, base_rows, write_folder
from typer.testing import CliRunner

from locoscore import stats
from locoscore.benchmarks.locomo.parts import PARTS
from locoscore.benchmarks.locomo.report_parts import load_results
from locoscore.cli import app
from locoscore.generic.paired_folders import (
    MetricComparison,
    PairedCell,
    compare_many,
    compare_results,
)

runner = CliRunner()


def _three(tmp_path: Path) -> list[Path]:
    """A; B = A with F1 +25 points (capped) and every J correct; C = A."""
    rows_a = base_rows()
    judge = add_judge(rows_a, "binary")
    rows_b = copy.deepcopy(rows_a)
    for row in rows_b:
        row["f1_locomo"] = min(1.0, row["f1_locomo"] + 0.25)
        if "j_scores" in row:
            row.update(j_scores=[100.0] * 3, j_mean=100.0, j_std=0.0, j_runs=3, j_failures=0)
    return [
        write_folder(tmp_path / "a", rows_a, judge),
        write_folder(tmp_path / "b", rows_b, copy.deepcopy(judge)),
        write_folder(tmp_path / "c", copy.deepcopy(rows_a), copy.deepcopy(judge)),
    ]


def _cell(mc: MetricComparison, key: int | str) -> PairedCell:
    return mc.overall if key == "overall" else mc.by_category[int(key)]


def test_every_cell_is_holm_adjusted_across_the_comparisons(tmp_path: Path) -> None:
    a, b, c = (load_results(p) for p in _three(tmp_path))
    many = compare_many(PARTS, [a, b, c])
    raw = [compare_results(PARTS, a, b), compare_results(PARTS, a, c)]
    assert [m.paired for m in many] == [20, 20]
    for column in ("f1_locomo", "j_mean"):
        cells_raw = [next(m for m in r.metrics if m.metric.column == column) for r in raw]
        cells = [next(m for m in r.metrics if m.metric.column == column) for r in many]
        for key in ["overall", *cells_raw[0].by_category]:
            p_raw = [_cell(mc, key).wilcoxon.p_value for mc in cells_raw]
            adjusted = [_cell(mc, key).p_adjusted for mc in cells]
            assert adjusted == stats.holm_adjust(p_raw)
        # the mean differences and intervals are those of the pairwise comparisons
        assert cells[0].overall.ci == cells_raw[0].overall.ci
    f1_b = next(m for m in many[0].metrics if m.metric.column == "f1_locomo").overall
    # B's p = erfc(4 / sqrt 2) (see test_compare); with C's p = 1, Holm doubles the smaller
    assert f1_b.p_adjusted == 2 * f1_b.wilcoxon.p_value and f1_b.significant
    f1_c = next(m for m in many[1].metrics if m.metric.column == "f1_locomo").overall
    assert f1_c.p_adjusted == 1.0 and not f1_c.significant
    j_b = next(m for m in many[0].metrics if m.metric.column == "j_mean")
    assert j_b.mcnemar is not None and j_b.mcnemar_p_adjusted == min(1.0, 2 * j_b.mcnemar.p_value)


def test_two_folders_are_compared_exactly_as_before(tmp_path: Path) -> None:
    a, b, _ = (load_results(p) for p in _three(tmp_path))
    (only,) = compare_many(PARTS, [a, b])
    assert only == compare_results(PARTS, a, b)
    assert all(m.overall.p_adjusted is None for m in only.metrics)


def test_the_command_takes_n_folders_and_writes_one_csv_per_comparison(tmp_path: Path) -> None:
    folders = _three(tmp_path)
    summary = json.loads((folders[2] / "summary.json").read_text())
    # C's answers came from the model that judged them
    summary["run"] = {"answer": {"model": summary["judge"]["model"]}}
    (folders[2] / "summary.json").write_text(json.dumps(summary))
    out = tmp_path / "cmp"
    result = runner.invoke(app, ["compare", *map(str, folders), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == [
        "compare.html", "compare.md", "differences-B.csv", "differences-C.csv",
    ]  # fmt: skip
    md = (out / "compare.md").read_text()
    assert "# locoscore compare: 2 folders against A" in md
    assert "corrected with Holm's step-down method" in md
    assert "## B against A" in md and "## C against A" in md
    assert "| Category | n | A | C | C - A | 95 % CI of C - A | Wilcoxon p | Holm p |" in md
    assert "C: self-judging: C's answers were produced by gpt-4o-mini and judged by it" in md
    text = " ".join(result.output.split())
    assert "Holm p" in text and "warning: C: self-judging" in text


def test_compare_needs_two_folders(tmp_path: Path) -> None:
    a = _three(tmp_path)[0]
    result = runner.invoke(app, ["compare", str(a), "--out", str(tmp_path / "cmp")])
    assert result.exit_code == 2 and "at least two results folders" in result.output
    assert not (tmp_path / "cmp").exists()
