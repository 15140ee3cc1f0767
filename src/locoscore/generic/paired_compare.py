"""The paired comparison every benchmark's `compare` writes: B - A per group of questions.

A benchmark decides which folders compare, which questions each row is over and what a
question scores; this module does the rest, once for all: both means (x100), the mean
paired difference with its 95 % percentile-bootstrap interval over questions, and a
two-sided test (McNemar's exact test on score >= 0.5 for right/wrong scores, the Wilcoxon
signed-rank test for graded ones), then compare.json, compare.md and compare.html, naming
both folders (A and B mean nothing without them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from locoscore import stats
from locoscore._io import write_json_atomic, write_text_atomic
from locoscore.report.document import Block, Heading, Notes, Paragraph, Table
from locoscore.report.html import render_html
from locoscore.report.markdown import render_markdown
from locoscore.results.layout import COMPARE_HTML, COMPARE_JSON, COMPARE_MD
from locoscore.stats import ALPHA, mcnemar_exact

Test = Literal["mcnemar", "wilcoxon"]
_TEST_HEADER = {"mcnemar": "McNemar p", "wilcoxon": "Wilcoxon p"}


@dataclass(frozen=True)
class PairedCell:
    n: int
    mean_a: float
    mean_b: float
    ci: stats.Interval  # of the mean difference B - A
    wilcoxon: stats.WilcoxonResult
    p_adjusted: float | None = None  # Holm-adjusted Wilcoxon p, with more than one comparison

    @property
    def difference(self) -> float:
        return self.ci.estimate

    @property
    def p_value(self) -> float:
        """The p-value the verdict uses: Holm-adjusted when there are several comparisons."""
        return self.wilcoxon.p_value if self.p_adjusted is None else self.p_adjusted

    @property
    def significant(self) -> bool:
        return self.p_value < ALPHA


def paired_cell(a: Sequence[float], b: Sequence[float]) -> PairedCell:
    """Both means, the mean difference B - A with its paired bootstrap interval (resampling
    questions, seeded) and the Wilcoxon signed-rank test of the differences."""
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    ci = stats.bootstrap_mean_ci(diffs, resamples=stats.PAIRED_RESAMPLES, seed=stats.PAIRED_SEED)
    return PairedCell(
        len(diffs), sum(a) / len(a), sum(b) / len(b), ci, stats.wilcoxon_signed_rank(diffs)
    )


def paired_test_for(scores: Iterable[float]) -> Test:
    """McNemar's test when every score is right (1) or wrong (0); the Wilcoxon signed-rank
    test when any is graded (a partial credit, a mean over judge runs): cutting those at
    0.5 would call a half-right answer right and hide the difference."""
    return "mcnemar" if all(x in (0.0, 1.0) for x in scores) else "wilcoxon"


def paired_rows(
    groups: Mapping[str, list[str]],
    score_a: Callable[[str], float],
    score_b: Callable[[str], float],
    test: Test,
) -> dict[str, dict[str, Any]]:
    """One row per group with questions (`{test}_p` names the test); empty groups are left
    out."""
    rows: dict[str, dict[str, Any]] = {}
    for name, ids in groups.items():
        if not ids:
            continue
        a, b = [score_a(q) for q in ids], [score_b(q) for q in ids]
        cell = paired_cell(a, b)
        ci = cell.ci
        row: dict[str, Any] = {
            "count": len(ids),
            "a": round(100 * cell.mean_a, 4),
            "b": round(100 * cell.mean_b, 4),
            "difference": round(100 * ci.estimate, 4),
            "ci95": [round(100 * ci.low, 4), round(100 * ci.high, 4)],
        }
        if test == "mcnemar":
            row["mcnemar_p"] = mcnemar_exact([x >= 0.5 for x in a], [y >= 0.5 for y in b]).p_value
        else:
            row["wilcoxon_p"] = cell.wilcoxon.p_value
        rows[name] = row
    return rows


def write_comparison(
    out: Path,
    result: dict[str, Any],
    title: str,
    notes: list[str],
    method: str,
    test: Test,
    labels: Mapping[str, str] | None = None,
) -> None:
    """compare.json (`result`), and compare.md / compare.html: the title, `notes` (after
    which folder is A and which B, from `result["folders"]`), the method, the table of
    `result["groups"]` (each row named by `labels`, else its key)."""
    names = labels or {}
    table = Table(
        ["", "n", "A", "B", "B - A (95 % CI)", _TEST_HEADER[test]],
        [
            [names.get(k, k), str(v["count"]), f"{v['a']:.1f}", f"{v['b']:.1f}",
             f"{v['difference']:+.1f} [{v['ci95'][0]:+.1f}, {v['ci95'][1]:+.1f}]",
             f"{v[f'{test}_p']:.3g}"]
            for k, v in result["groups"].items()
        ],
        numeric=(False, True, True, True, True, True),
    )  # fmt: skip
    folders = [f"{side} = {path}" for side, path in result["folders"].items()]
    document: list[Block] = [
        Heading(title, 1),
        # which folder is which: a comparison that does not name them cannot be read
        Notes([*folders, *notes]),
        Paragraph(method),
        table,
    ]
    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / COMPARE_JSON, result)
    write_text_atomic(out / COMPARE_MD, render_markdown(document))
    write_text_atomic(out / COMPARE_HTML, render_html(document, title))
