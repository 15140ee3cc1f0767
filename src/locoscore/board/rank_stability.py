"""Rank stability on the board: folders judged by the same panel (`judge --panel`), the
systems' order under each judge, Kendall's tau between the judges' orders, and every pair
of systems whose order flips between two judges. A flipped pair is one the board calls
neither better nor worse: which is ahead depends on the judge, not the systems.

A system is named by its folder as given (two runs of one system are two systems).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

from locoscore.board.groups import Group
from locoscore.errors import InputError
from locoscore.judge.panel.agreement import kendall_tau_b
from locoscore.report.document import Block, Heading, Paragraph, Table
from locoscore.results.layout import PANEL_JSON, PANEL_JUDGES


@dataclass(frozen=True)
class Flip:
    a: str
    b: str
    above: str  # a judge under which a is above b
    below: str  # a judge under which a is below b

    def sentence(self) -> str:
        return (
            f"{self.a} above {self.b} under judge {self.above}, below under judge "
            f"{self.below}: neither is better"
        )


@dataclass(frozen=True)
class RankStability:
    judges: list[str]  # the judges every panel folder has, with a headline in each
    orderings: dict[str, list[tuple[str, float]]]  # judge -> (system, J), best first
    tau: list[tuple[str, str, float | None]]
    flips: list[Flip]


def is_panel_folder(path: Path) -> bool:
    return (path / PANEL_JSON).is_file()


def read_panel_folder(path: Path, shown: str) -> tuple[str, dict[str, Any]]:
    """(the system as the board keys it: its folder as shown, the folder's panel.json).
    Never the run's system name: two runs of one system are two systems here."""
    try:
        panel = json.loads((path / PANEL_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the panel ({exc})", file=str(path / PANEL_JSON)) from None
    return shown, panel


def rank_stability(panels: list[tuple[str, dict[str, Any]]]) -> RankStability | None:
    """None with fewer than two systems or no judge they share."""
    if len(panels) < 2:
        return None
    heads: dict[str, dict[str, float]] = {}  # judge -> system -> J
    for system, panel in panels:
        for judge, entry in (panel.get("judges") or {}).items():
            mean = ((entry or {}).get("overall") or {}).get("mean")
            if isinstance(mean, int | float):
                heads.setdefault(judge, {})[system] = float(mean)
    systems = [s for s, _ in panels]
    judges = [j for j, by in heads.items() if all(s in by for s in systems)]
    if not judges:
        return None
    orderings = {
        j: sorted(((s, heads[j][s]) for s in systems), key=lambda x: -x[1]) for j in judges
    }
    tau = [(x, y, kendall_tau_b(heads[x], heads[y])) for x, y in combinations(judges, 2)]
    flips = []
    for a, b in combinations(systems, 2):
        above = [j for j in judges if heads[j][a] > heads[j][b]]
        below = [j for j in judges if heads[j][a] < heads[j][b]]
        if above and below:
            flips.append(Flip(a, b, above[0], below[0]))
    return RankStability(judges, orderings, tau, flips)


def stability_blocks(s: RankStability) -> list[Block]:
    blocks: list[Block] = [
        Heading("Rank stability across judges"),
        Paragraph(
            "The systems judged by the same panel, ordered under each judge (J, best first), "
            "and Kendall's tau between the judges' orders (1: the same order)."
        ),
        Table(
            ["judge", "order (J)"],
            [[j, " > ".join(f"{n} ({v:.1f})" for n, v in o)] for j, o in s.orderings.items()],
        ),
        Table(
            ["judges", "Kendall's tau"],
            [[f"{x} vs {y}", "n/a" if t is None else f"{t:.3f}"] for x, y, t in s.tau],
        ),
    ]
    if s.flips:
        blocks.append(Paragraph("Order flips (the board calls neither system better):"))
        blocks.append(Table(["flipped pair"], [[f.sentence()] for f in s.flips]))
    else:
        blocks.append(Paragraph("No pair of systems changes order between judges."))
    return blocks


def stability_json(s: RankStability) -> dict[str, Any]:
    return {
        "judges": s.judges,
        "orderings": {j: [{"system": n, "j": v} for n, v in o] for j, o in s.orderings.items()},
        "kendall_tau": [{"a": x, "b": y, "tau": t} for x, y, t in s.tau],
        "flips": [
            {"a": f.a, "b": f.b, "above_under": f.above, "below_under": f.below} for f in s.flips
        ],
    }


def flipped_rows(s: RankStability, shown: Mapping[str, str]) -> set[frozenset[str]]:
    """The board rows (judge folders, as shown) of every flipped pair under every judge;
    `shown`: system -> its panel folder as given."""
    return {
        frozenset(f"{shown[x]}/{PANEL_JUDGES}/{judge}" for x in (f.a, f.b))
        for f in s.flips
        for judge in s.judges
    }


def mark_flips(groups: Iterable[Group], pairs: set[frozenset[str]]) -> list[Group]:
    """A row whose order against its group's leader flips under another judge shares rank
    1 with the leader, and says so (`Row.flips`): the board calls neither better."""
    out = []
    for group in groups:
        rows = list(group.rows)
        first = next((i for i, r in enumerate(rows) if r.reference is None), None)
        if first is None:
            out.append(group)
            continue
        leader = rows[first]
        for i, row in enumerate(rows[first + 1 :], first + 1):
            if row.failed_gates or leader.failed_gates or row.reference is not None:
                continue  # a row failing a claim gate (or a reference line) is not ranked
            if frozenset((leader.entry.folder, row.entry.folder)) in pairs:
                rows[i] = dataclasses.replace(row, rank=1, tied=True, flips=True)
                rows[first] = dataclasses.replace(rows[first], tied=True)
        out.append(dataclasses.replace(group, rows=rows))
    return out
