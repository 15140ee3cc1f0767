"""`scores.csv`: one row per question, the benchmark's leading columns, then any other field
sorted."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

# A spreadsheet runs a cell that starts with one of these as a formula; predictions are
# untrusted text, so such cells get a leading apostrophe (the OWASP CSV-injection advice).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """One CSV cell: empty for None, JSON for lists and dicts, text defused as a formula."""
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)  # j_scores: [70, null, 80]
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def scores_csv(rows: Sequence[dict[str, Any]], leading: Sequence[str] = ()) -> str:
    """The rows as CSV: the `leading` columns the rows have, in that order, then the rest."""
    present = {key for row in rows for key in row}
    columns = [c for c in leading if c in present]
    columns += sorted(present - set(columns))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([csv_cell(row.get(c)) for c in columns])
    return buffer.getvalue()
