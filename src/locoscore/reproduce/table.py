"""The reproduced table: each run row's J from its judged folder (per category and overall,
with the 95 % bootstrap interval over questions) beside the paper's value and the gap
(this run − paper), then the paper's rows locoscore did not run, with why.

Read from folders only (no API call): `write_table` can be rerun on recorded folders.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore.benchmarks.locomo import baselines
from locoscore.benchmarks.locomo.categories import CATEGORY_NAMES
from locoscore.benchmarks.locomo.comparison import category_ids
from locoscore.benchmarks.locomo.metrics import J
from locoscore.benchmarks.locomo.parts import PARTS
from locoscore.benchmarks.locomo.report_parts import load_results
from locoscore.generic.metric_stats import CellStats, metric_stats
from locoscore.report.document import Block, Heading, Notes, Paragraph, Table
from locoscore.report.markdown import render_markdown
from locoscore.report.numbers import DASH
from locoscore.reproduce.plan import SELF_JUDGING, RunRow, SkippedRow

TABLE_MD = "reproduce.md"
TABLE_JSON = "reproduce.json"
IDS = category_ids(False)  # the paper's table leaves category 5 out


@dataclass(frozen=True)
class Measured:
    """One run row's judged folder, or why it has none (`missing`)."""

    row: RunRow
    folder: Path
    missing: str = ""


def _cell_json(cell: CellStats | None, paper: float | None) -> dict[str, Any] | None:
    if cell is None:
        return None
    ci = cell.bootstrap
    finite = math.isfinite(ci.low) and math.isfinite(ci.high)
    return {
        "n": cell.n,
        "j": round(cell.mean, 4),
        "ci95": [round(ci.low, 4), round(ci.high, 4)] if finite else None,
        "run_std": None if cell.run_std is None else round(cell.run_std, 4),
        "paper": paper,
        "gap": None if paper is None else round(cell.mean - paper, 4),
        "paper_inside_ci": None if paper is None or not finite else ci.low <= paper <= ci.high,
    }


def _cell_text(cell: dict[str, Any] | None) -> str:
    if cell is None:
        return DASH
    text = f"{cell['j']:.2f}"
    if cell["ci95"] is not None:
        text += f" [{cell['ci95'][0]:.1f}, {cell['ci95'][1]:.1f}]"
    if cell["paper"] is not None:
        text += f"; paper {cell['paper']:.2f}, gap {cell['gap']:+.2f}"
    return text


def measured_row(m: Measured) -> dict[str, Any]:
    """One row of reproduce.json: its cells by category id and overall."""
    published = baselines.J_BASELINES.get(m.row.published) if m.row.published else None
    entry: dict[str, Any] = {
        "row": m.row.name,
        "label": m.row.label,
        "system": m.row.system,
        "published_row": m.row.published,
        "folder": str(m.folder),
        "note": m.row.note,
    }
    if m.missing:
        return {**entry, "missing": m.missing}
    results = load_results(m.folder)
    stats = metric_stats(results, J, PARTS, False)
    if stats is None:
        return {**entry, "missing": "not judged (no J in its scores)"}
    judge = results.judge or {}
    sample = judge.get("sample") or (results.summary.get("run") or {}).get("sample")
    paper = published.values if published else {}
    return {
        **entry,
        "run_signature": (results.summary.get("run") or {}).get("signature"),
        "judge_signature": judge.get("signature"),
        "sample": sample.get("signature") if isinstance(sample, dict) else None,
        "categories": {
            str(cid): _cell_json(stats.by_category.get(cid), paper.get(cid)) for cid in IDS
        },
        "overall": _cell_json(stats.overall, published.overall if published else None),
    }


def table_document(measured: list[Measured], skipped: list[SkippedRow]) -> dict[str, Any]:
    return {
        "table": "Mem0 paper, LoCoMo J (Tables 1-2)",
        "source": baselines.MEM0_PAPER_T1_T2.url,
        "self_judging": SELF_JUDGING,
        "rows": [measured_row(m) for m in measured],
        "not_run": [{"published_row": s.published, "why": s.why} for s in skipped],
    }


def table_blocks(document: dict[str, Any]) -> list[Block]:
    headers = ["System", *(CATEGORY_NAMES[c] for c in IDS), "overall", "paper's row"]
    rows: list[list[str]] = []
    for row in document["rows"]:
        if "missing" in row:
            cells = [f"not measured: {row['missing']}", *(DASH for _ in IDS)]
        else:
            cats = row["categories"]
            cells = [*(_cell_text(cats[str(c)]) for c in IDS), _cell_text(row["overall"])]
        rows.append([row["label"], *cells, row["published_row"] or DASH])
    samples = {r.get("sample") for r in document["rows"] if r.get("sample")}
    caption = (
        "J x100 of this reproduction with its 95 % bootstrap interval over questions; the "
        "paper's value and the gap (this run − paper) in each cell. The paper's ± (Table 2) "
        "is the std of J over its 10 judge runs, not an interval."
    )
    table = Table(
        headers,
        rows,
        frozenset(range(len(rows))),
        (False, *(True for _ in IDS), True, False),
        caption,
        subset=", ".join(sorted(samples)),
    )
    not_run = Table(
        ["Paper's row", "why it is not run"],
        [[s["published_row"], s["why"]] for s in document["not_run"]],
        own_numbers=False,
    )
    notes = [r for r in (_row_note(r) for r in document["rows"]) if r]
    return [
        Heading("The Mem0 paper's LoCoMo table, reproduced", 1),
        Paragraph(SELF_JUDGING),
        table,
        *([Notes(notes)] if notes else []),
        Heading("Rows of the paper not run"),
        not_run,
        Paragraph(baselines.MEM0_MISLABEL_NOTE),
    ]


def _row_note(row: dict[str, Any]) -> str:
    keys = ("note", "run_signature", "judge_signature")
    parts = [row[k] for k in keys if row.get(k)]
    return f"{row['label']}: {'; '.join(parts)}" if parts else ""


def write_table(out: Path, measured: list[Measured], skipped: list[SkippedRow]) -> list[Path]:
    """reproduce.md and reproduce.json in `out`, from the judged folders."""
    from locoscore._io import write_json_atomic, write_text_atomic

    document = table_document(measured, skipped)
    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out / TABLE_JSON, document)
    write_text_atomic(out / TABLE_MD, render_markdown(table_blocks(document)))
    return [out / TABLE_MD, out / TABLE_JSON]
