"""What a benchmark declares for the machinery over its results folders scored on several
metrics: reading and checking a folder (`generic.scored_folder`), the paired comparison
(`generic.paired_folders`, `generic.compare_report`) and the judge's terminal table. Its
question groups, the metric columns of its scores.jsonl, the fields that name a question,
and, optionally, a subset view (the questions an errata list leaves standing, say)
compared again on its own.

A benchmark whose folders hold scores.jsonl rows with a group field and metric columns
declares these parts and gets the checked folder, compare.md, compare.html, the
per-question differences and the terminal tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ColumnMetric:
    """A per-question score column of scores.jsonl, as reports and comparisons show it."""

    column: str  # field in scores.jsonl
    label: str  # what a table header says
    protocol: str  # key of its summary.json section ("judge" for the judge's score)
    scale: float  # multiply stored values by this to show them
    # The protocol's own convention for its overall: the groups left out of an overall by
    # default (`Groups.excluded`) count in this metric's.
    overall_includes_excluded: bool
    baseline_protocol: str | None  # the published baselines it may be compared with
    decimals: int = 1

    @property
    def is_judge(self) -> bool:
        return self.protocol == "judge"


@dataclass(frozen=True)
class Groups:
    """The question groups tables are split by: the row field that holds a question's
    group, the groups in display order with their names, and those an overall leaves out
    unless a metric's convention counts them."""

    field: str
    order: tuple[Any, ...]
    names: Mapping[Any, str]
    excluded: frozenset[Any] = frozenset()

    def label(self, key: Any) -> str:
        """A table row's label: the name with its key."""
        return f"{self.names[key]} ({key})"

    @property
    def expected(self) -> str:
        """The keys a row may name, for an error: `1-5` for a run of ints, else a list."""
        if all(isinstance(k, int) for k in self.order):
            keys = sorted(self.order)
            if keys == list(range(keys[0], keys[-1] + 1)):
                return f"{keys[0]}-{keys[-1]}"
        return ", ".join(str(k) for k in self.order)

    def scope(self, includes_excluded: bool) -> str:
        """What an overall covers, by the groups it may leave out ("excl. adversarial")."""
        left = " and ".join(self.names[k] for k in self.order if k in self.excluded)
        return f"{'incl.' if includes_excluded else 'excl.'} {left}"


@dataclass(frozen=True)
class SubsetView:
    """A second view of the paired questions: those `keep` accepts, compared again with
    their own n, intervals and tests (the questions whose gold stands under an errata
    list). `describe(paired, left_out, kept)` is the paragraph that opens it in compare.md;
    the terminal says `{name}: {kept} shared questions {kept_words} ({left_out} left out)`."""

    name: str  # "verified gold": suffixes the metric headings and figure ids
    heading: str  # the section heading
    keep: Callable[[dict[str, Any]], bool]
    describe: Callable[[int, int, int], str]
    kept_words: str


@dataclass(frozen=True)
class FolderParts:
    """A benchmark's declared parts for comparing its folders."""

    groups: Groups
    metrics: tuple[ColumnMetric, ...]
    id_fields: tuple[str, ...]  # the differences CSV's first columns, before group and question
    scales: str  # how the metrics are shown, for the method paragraph ("J 0-100")
    # A folder's scoring signatures by protocol name (a differing one is warned about).
    signatures: Callable[[dict[str, Any]], Mapping[str, Any]] = field(default=lambda s: {})
    # The judge's per-run scores (0-100), for McNemar's test on majority verdicts of a
    # right/wrong judge; None: the judge's score column alone.
    judge_runs: str | None = None
    # Columns besides the metrics' that must hold a finite number or null in every row.
    checked_numbers: tuple[str, ...] = ()
    # The key of summary.json's judge section that says the judge's overall counts the
    # groups left out by default (J is compared with them only when both sides say so).
    judge_includes: str = "include_excluded"
