"""The markdown layout is pinned: a change to report.md must show up as a snapshot diff.

Regenerate deliberately with LOCOSCORE_UPDATE_SNAPSHOTS=1 and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

from report_helpers import add_judge, base_rows, folder_with_errata, write_folder

from locoscore.benchmarks.locomo import LOCOMO
from locoscore.benchmarks.locomo.report_parts import build_reports

SNAPSHOTS = Path(__file__).parent / "snapshots"
SNAPSHOT = SNAPSHOTS / "report.md"


def test_markdown_report_matches_the_snapshot(tmp_path: Path) -> None:
    rows = base_rows()
    folder = write_folder(tmp_path / "run", rows, add_judge(rows, "binary"))
    build_reports(folder, LOCOMO)
    text = (folder / "report.md").read_text(encoding="utf-8")
    if os.environ.get("LOCOSCORE_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.write_text(text, encoding="utf-8")
    assert text == SNAPSHOT.read_text(encoding="utf-8")


def test_the_verified_gold_view_matches_its_snapshot(tmp_path: Path) -> None:
    folder = folder_with_errata(tmp_path / "run")
    build_reports(folder, LOCOMO)
    text = (folder / "report.md").read_text(encoding="utf-8")
    snapshot = SNAPSHOTS / "report_verified_gold.md"
    if os.environ.get("LOCOSCORE_UPDATE_SNAPSHOTS") == "1":
        snapshot.write_text(text, encoding="utf-8")
    assert text == snapshot.read_text(encoding="utf-8")
