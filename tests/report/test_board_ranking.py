"""Board ranking on hand-made folders: a clearly worse row gets its own rank, a copy of the
leader shares rank 1, and the test against the leader is Holm-adjusted across the rows."""

from __future__ import annotations

import copy
import math
from pathlib import Path

from report_helpers import base_rows, write_folder

from locoscore.board import build_board


def test_a_worse_row_is_ranked_below_and_a_copy_of_the_leader_ties(tmp_path: Path) -> None:
    rows = base_rows()
    better = copy.deepcopy(rows)
    for row in better:
        row["f1_locomo"] = min(1.0, row["f1_locomo"] + 0.25)
    base = write_folder(tmp_path / "base", rows)
    best = write_folder(tmp_path / "best", better)
    twin = write_folder(tmp_path / "twin", copy.deepcopy(better))
    (group,) = build_board([base, twin, best]).groups
    assert group.headline is not None and group.headline.key == "f1_locomo"
    names = [Path(r.entry.folder).name for r in group.rows]
    assert names == ["best", "twin", "base"]  # equal means: by folder
    ranks = [(r.rank, r.tied) for r in group.rows]
    assert ranks == [(1, True), (1, True), (3, False)]
    twin_vs, base_vs = group.rows[1].versus, group.rows[2].versus
    assert twin_vs is not None and base_vs is not None
    assert (twin_vs.difference, twin_vs.p, twin_vs.p_holm) == (0.0, 1.0, 1.0)
    # 16 of 20 questions lose 25 points: -20, Wilcoxon z = -4 (see test_compare); Holm over
    # the two tests doubles the smaller p
    assert base_vs.difference == -20.0
    assert math.isclose(base_vs.p, math.erfc(4 / math.sqrt(2)))
    assert math.isclose(base_vs.p_holm, 2 * base_vs.p) and not base_vs.indistinguishable
