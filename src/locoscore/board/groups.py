"""Comparable groups: entries with the same identity, ranked by the group's headline metric.

Rows are never ranked across groups. Within one, each row is tested against the group's
leader on the questions both answered (the paired Wilcoxon test of `locoscore compare`, on
the per-question headline scores each row's benchmark gives), the p-values Holm-adjusted
across the group's rows; a row the test cannot tell from the leader shares rank 1 with it,
and rows with equal headline means share a rank.

Reference systems (`no-memory`, the floor; `gold-evidence`, the retrieval ceiling) are not
ranked: they are shown as lines of their group, the ceiling above the ranked rows and the
floor below, never as its leader nor as a row that fails a gate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from locoscore import stats
from locoscore.board.entries import Entry
from locoscore.board.gates import failed_gates
from locoscore.board.identity import Identity
from locoscore.results.board_row import MetricColumn
from locoscore.stats import ALPHA


@dataclass(frozen=True)
class Versus:
    """A row against its group's leader, on the headline metric (row - leader)."""

    n: int
    difference: float
    ci_low: float
    ci_high: float
    p: float  # Wilcoxon signed-rank, two-sided
    p_holm: float  # Holm-adjusted across the group's rows

    @property
    def indistinguishable(self) -> bool:
        return self.p_holm >= ALPHA


@dataclass(frozen=True)
class Row:
    entry: Entry
    rank: int  # 0: not ranked (the row fails a claim gate)
    tied: bool
    versus: Versus | None  # None for the leader, or with no shared scored question
    failed_gates: tuple[str, ...] = ()  # `board.gates`: never the leader when not empty
    # its order against the leader flips under another judge of the same panel
    # (`board.rank_stability`): neither is better, whatever this judge's test says
    flips: bool = False
    reference: str | None = None  # "floor" or "retrieval ceiling": a line, never ranked


@dataclass(frozen=True)
class Group:
    number: int  # 1-based, in order of first appearance on the command line
    identity: Identity
    headline: MetricColumn | None
    rows: list[Row]

    @property
    def name(self) -> str:
        return f"Group {self.number}"

    @property
    def leader(self) -> Row | None:
        """The first row ranked (None: the group holds only reference lines)."""
        return next((r for r in self.rows if r.reference is None), None)


def _versus(leader: Entry, entry: Entry) -> tuple[int, float, float, float, float]:
    """Per-question headline scores the rows' benchmark gave, paired on the questions both
    answered: the mean difference, its paired-bootstrap interval, the Wilcoxon p."""
    decimals = entry.row.paired_decimals
    found = stats.paired_difference(leader.row.scores, entry.row.scores, decimals)
    if found is None:
        return (0, 0.0, 0.0, 0.0, 1.0)
    return (found.n, found.estimate, found.low, found.high, found.p)


def rank_group(number: int, entries: Sequence[Entry]) -> Group:
    """The group's systems under test ranked, its reference systems as lines around them."""
    ranked = [e for e in entries if e.reference is None]
    ceilings = [_line(e) for e in entries if "ceiling" in (e.reference or "")]
    floors = [_line(e) for e in entries if e.reference and "ceiling" not in e.reference]
    if not ranked:
        return Group(number, entries[0].identity, entries[0].headline(), ceilings + floors)
    group = _rank_systems(number, ranked)
    return Group(number, group.identity, group.headline, ceilings + group.rows + floors)


def _line(entry: Entry) -> Row:
    return Row(entry, 0, False, None, reference=entry.reference)


def _rank_systems(number: int, entries: Sequence[Entry]) -> Group:
    headline = entries[0].headline()

    def score(e: Entry) -> float:
        value = e.mean(headline) if headline is not None else None
        return float("-inf") if value is None else value

    failing = {id(e): failed_gates(e) for e in entries}
    # a row failing a claim gate is never the leader: passing rows first
    ordered = sorted(entries, key=lambda e: (bool(failing[id(e)]), -score(e), e.folder))
    leader, others = ordered[0], ordered[1:]
    tested = headline is not None and not failing[id(leader)]
    tests = [_versus(leader, e) for e in others] if tested else []
    adjusted = stats.holm_adjust([t[4] for t in tests if t[0] > 0])
    versus: list[Versus | None] = [None]
    held = iter(adjusted)
    for n, diff, low, high, p in tests:
        versus.append(Versus(n, diff, low, high, p, next(held)) if n > 0 else None)
    if not tested:  # no metric (not judged yet) or no passing row: nothing to test
        versus = [None] * len(ordered)
    ranks: list[int] = []
    for i, (entry, vs) in enumerate(zip(ordered, versus, strict=True)):
        if failing[id(entry)]:
            ranks.append(0)
        elif i == 0 or (vs is not None and vs.indistinguishable):
            ranks.append(1)
        elif score(entry) == score(ordered[i - 1]):
            ranks.append(ranks[-1])
        else:
            ranks.append(i + 1)
    rows = [
        Row(entry, rank, rank > 0 and ranks.count(rank) > 1, vs, failing[id(entry)])
        for entry, rank, vs in zip(ordered, ranks, versus, strict=True)
    ]
    return Group(number, leader.identity, headline, rows)


def build_groups(entries: Sequence[Entry]) -> list[Group]:
    """Entries grouped by identity, groups in order of their first entry."""
    by_identity: dict[Identity, list[Entry]] = {}
    for entry in entries:
        by_identity.setdefault(entry.identity, []).append(entry)
    return [rank_group(i, members) for i, members in enumerate(by_identity.values(), start=1)]


def differing_aspects(groups: Sequence[Group]) -> list[str]:
    """The aspects (benchmark, data file, question set, ...) whose value is not the same in
    every group: what the page says separates the tables."""
    if len(groups) < 2:
        return []
    aspects = [g.identity.aspects() for g in groups]
    return [name for name in aspects[0] if len({a[name] for a in aspects}) > 1]
