"""`scores.csv`: one row per question, fixed leading columns, then any extra fields sorted."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

LEADING_COLUMNS = (
    "sample_id",
    "qa_index",
    "category",
    "category_name",
    "question",
    "answer",
    "prediction",
    "f1_locomo",
    "f1_mem0",
    "bleu1_mem0",
    "f1_spec",
    "j_mean",
    "j_std",
    "j_runs",
    "j_failures",
    "j_protocol",
    "j_scores",
    "search_latency_s",
    "total_latency_s",
    "context_tokens",
)


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


def scores_csv(rows: Sequence[dict[str, Any]]) -> str:
    present = {key for row in rows for key in row}
    columns = [c for c in LEADING_COLUMNS if c in present]
    columns += sorted(present - set(columns))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([csv_cell(row.get(c)) for c in columns])
    return buffer.getvalue()
