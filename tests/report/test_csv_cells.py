"""CSV cells: predictions are untrusted text and must not run as spreadsheet formulas."""

from __future__ import annotations

import csv
import io

import pytest

from locoscore.report.csv import csv_cell, scores_csv


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("+1+1", "'+1+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("plain answer", "plain answer"),
        (-0.5, -0.5),  # numbers are not text and stay as they are
        (None, ""),
        ([70, None, 80], "[70, null, 80]"),
    ],
)
def test_csv_cell(value: object, expected: object) -> None:
    assert csv_cell(value) == expected


def test_scores_csv_defuses_a_formula_prediction() -> None:
    text = scores_csv([{"sample_id": "s", "qa_index": 0, "prediction": "=1+1", "f1_locomo": 0.5}])
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows[0]["prediction"] == "'=1+1" and rows[0]["f1_locomo"] == "0.5"
