"""What a benchmark declares for the report of its results folders (`generic.report_build`):
its folder parts (groups, metric columns), the words its report uses for them, the
sections only it has (published baselines), and, optionally, a second view of its
questions (those an errata list leaves standing) with the flag each question carries.

The benchmark says *what*; `generic.folder_analysis`, `report_opening`, `report_sections`,
`run_section` and `report_build` compute and write report.md, report.html, scores.csv and
summary.json's `report` section from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from locoscore.generic.folder_parts import ColumnMetric, FolderParts
from locoscore.report.document import Block


class QuestionView(Protocol):
    """A second view of a folder's questions, computed from its recorded summary.json (the
    questions whose gold stands under an errata list): each question's flag, and its own
    entry in summary.json's `report` section."""

    def flag(self, row: dict[str, Any]) -> str | None: ...

    def summary(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class ViewParts:
    """The view's declared parts: how it is computed from a folder, where it is recorded,
    the column that flags its questions (scores.csv, the example tables) and its sections."""

    compute: Callable[[Any, ReportParts], QuestionView | None]  # (Results, parts) -> view
    key: str  # its entry in summary.json's report section
    flag_column: str  # the scores.csv column naming each question's flag
    flag_header: str  # the example tables' column
    flag_caption: str  # what the flag means, under an example table
    blocks: Callable[[Any], list[Block]]  # (Analysis) -> its report sections


@dataclass(frozen=True)
class ExampleParts:
    """The error analysis: the score column its tables show beside J, the lexical and judge
    columns whose disagreement it lists, and each table's (name, title, why it is there)."""

    score: ColumnMetric  # its value x100 under `score_header`
    score_header: str
    disagreement: tuple[str, str] | None  # (lexical column stored 0-1, judge column 0-100)
    sections: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True)
class EvidenceParts:
    """The run section's evidence recall: what the evidence is, and the metric split by
    whether it was retrieved (`measures.f1_by_evidence`)."""

    described: str  # the paragraph under the recall table
    metric: ColumnMetric
    heading: str


@dataclass(frozen=True)
class ReportParts:
    """A benchmark's declared parts for its report."""

    folder: FolderParts
    benchmark: str  # the title's "... on NAME"
    headline: tuple[str, ...]  # the metric columns the headline table shows
    shown_scales: str  # how the scores are shown, for the opening paragraph
    unit_field: str  # the row field naming a question's cluster (its conversation)
    unit_word: str  # the cluster in words, singular ("s" makes its plural)
    cluster_unit: str  # the clustered interval's unit, for summary.json
    intervals_caption: str  # under the table of every metric's intervals
    includes_key: str  # the metric entry's key saying its overall counts the excluded groups
    csv_columns: tuple[str, ...]  # scores.csv: these first (those the rows have), then sorted
    latency_fields: tuple[str, ...]
    # The published-baselines section: (analysis, paper_columns, compare_anyway) -> blocks.
    comparison: Callable[[Any, bool, bool], list[Block]]
    examples: ExampleParts
    evidence: EvidenceParts
    view: ViewParts | None = None

    def metric(self, column: str) -> ColumnMetric:
        return next(m for m in self.folder.metrics if m.column == column)

    @property
    def judge(self) -> ColumnMetric | None:
        return next((m for m in self.folder.metrics if m.is_judge), None)
