"""The shared report over a benchmark that is not LoCoMo: its declared parts (groups with
string keys, one metric, a question view, its own published-numbers section) give the
statistics, the sections and the view's entry, with no code of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from locoscore.generic.folder_analysis import Analysis, analyse
from locoscore.generic.folder_parts import ColumnMetric, FolderParts, Groups
from locoscore.generic.report_build import statistics_section
from locoscore.generic.report_parts import (
    EvidenceParts,
    ExampleParts,
    ReportParts,
    ViewParts,
)
from locoscore.generic.report_sections import format_full_report
from locoscore.generic.scored_folder import Results, load_results
from locoscore.report.document import Block, Heading, Paragraph

EXACT = ColumnMetric("exact", "Exact match", "exact", 100.0, False, None)
GROUPS = Groups("kind", ("x", "y", "z"), {"x": "recall", "y": "reasoning", "z": "trick"},
                frozenset({"z"}))  # fmt: skip
FOLDER = FolderParts(groups=GROUPS, metrics=(EXACT,), id_fields=("doc", "n"), scales="x100")


class SecondDocView:
    """Flags every question of document d2."""

    def flag(self, row: dict[str, Any]) -> str | None:
        return "SECOND" if row["doc"] == "d2" else None

    def summary(self) -> dict[str, Any]:
        return {"flagged_doc": "d2"}


def _view(results: Results, parts: ReportParts) -> SecondDocView | None:
    return SecondDocView() if results.summary.get("flag_second") else None


def _published(a: Analysis, paper_columns: bool, compare_anyway: bool) -> list[Block]:
    return [Heading("Toy published numbers"), Paragraph("none yet")]


PARTS = ReportParts(
    folder=FOLDER,
    benchmark="Toy",
    headline=("exact",),
    shown_scales="Exact match is shown x100.",
    unit_field="doc",
    unit_word="document",
    cluster_unit="document (doc)",
    intervals_caption="toy intervals",
    includes_key="overall_includes_trick",
    csv_columns=("doc", "n", "kind", "exact"),
    latency_fields=(),
    comparison=_published,
    examples=ExampleParts(EXACT, "EM", None, (("lowest", "Lowest scores", "first the zeros"),)),
    evidence=EvidenceParts("toy evidence", EXACT, "Exact match by evidence"),
    view=ViewParts(_view, "toy_view", "flag", "Flag", "SECOND: document d2", lambda a: []),
)


def _folder(tmp_path: Path, flag_second: bool) -> Path:
    rows = [
        {"doc": "d1", "n": 0, "kind": "x", "exact": 1.0, "question": "q", "answer": "a"},
        {"doc": "d1", "n": 1, "kind": "x", "exact": 0.0, "question": "q", "answer": "a"},
        {"doc": "d2", "n": 0, "kind": "y", "exact": 1.0, "question": "q", "answer": "a"},
        {"doc": "d2", "n": 1, "kind": "z", "exact": 1.0, "question": "q", "answer": "a"},
    ]
    folder = tmp_path / "toy"
    folder.mkdir()
    (folder / "scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "summary.json").write_text(json.dumps({"flag_second": flag_second}))
    return folder


def test_the_declared_parts_give_the_statistics_and_the_views_entry(tmp_path: Path) -> None:
    a = analyse(load_results(_folder(tmp_path, True), FOLDER), PARTS)
    section = statistics_section(a)
    exact = section["metrics"]["exact"]
    # the trick group is left out of the overall: (1 + 0 + 1) / 3, shown x100
    assert exact["overall"]["n"] == 3
    assert exact["overall"]["mean"] == pytest.approx(200 / 3)
    assert exact["overall_includes_trick"] is False
    assert {k: c["mean"] for k, c in exact["by_category"].items()} == {"x": 50.0, "y": 100.0}
    assert section["toy_view"] == {"flagged_doc": "d2"}
    assert section["intervals"]["clustered"]["unit"] == "document (doc)"


def test_the_report_opens_with_the_benchmark_and_its_own_section_first(tmp_path: Path) -> None:
    text = format_full_report(analyse(load_results(_folder(tmp_path, False), FOLDER), PARTS))
    assert text.startswith("# toy on Toy\n")
    assert "4 questions from 2 documents" in text and "Exact match is shown x100." in text
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings[:3] == ["## Headline", "## Contents", "## Toy published numbers"]
    assert "| Flag |" not in text  # no view recorded: no flag column


def test_the_view_flags_the_example_rows(tmp_path: Path) -> None:
    text = format_full_report(analyse(load_results(_folder(tmp_path, True), FOLDER), PARTS))
    assert "| Flag |" in text and "SECOND: document d2" in text
