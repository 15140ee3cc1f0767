"""J recorded by the source harness (a peer result file's own verdicts, read by the
benchmark's readers into summary.json's `recorded_judge`), shown beside locoscore's own J
and never mixed with it."""

from __future__ import annotations

from typing import Any

from locoscore.generic.folder_analysis import Analysis
from locoscore.report.document import Block, Heading, Paragraph, Table
from locoscore.report.numbers import DASH, fmt


def recorded_judge(summary: dict[str, Any]) -> dict[str, Any] | None:
    """The input file's recorded J, written by `score` (input) or `judge` (judge.input)."""
    judge = summary.get("judge")
    for source in (summary.get("input"), judge.get("input") if isinstance(judge, dict) else None):
        if isinstance(source, dict) and isinstance(source.get("recorded_judge"), dict):
            return dict(source["recorded_judge"])
    return None


def _cell(cell: dict[str, Any] | None) -> str:
    if not cell:
        return DASH
    return fmt(cell.get("mean"), 2, cell.get("std"))


def recorded_judge_blocks(a: Analysis) -> list[Block]:
    recorded = recorded_judge(a.results.summary)
    if recorded is None:
        return []
    by_category = recorded.get("by_category") or {}
    groups = a.parts.folder.groups
    ids = [c for c in groups.order if str(c) in by_category]
    headers = ["J", *(groups.names[c] for c in ids), "overall", "n"]
    judge_model = recorded.get("judge_model") or "judge model not stated in the file"
    runs = recorded.get("runs")
    rows = [
        [
            f"Recorded by the source harness ({judge_model}, {runs} run(s); mean ± std over runs)",
            *(_cell(by_category.get(str(c))) for c in ids),
            _cell(recorded.get("overall")),
            str((recorded.get("overall") or {}).get("n", DASH)),
        ],
        [
            "Recorded by the source harness, majority vote",
            *(fmt((by_category.get(str(c)) or {}).get("majority_vote"), 2) for c in ids),
            fmt((recorded.get("overall") or {}).get("majority_vote"), 2),
            str((recorded.get("overall") or {}).get("n", DASH)),
        ],
    ]
    ours = a.metric(a.parts.judge.column) if a.parts.judge is not None else None
    if ours is not None:
        model = (a.judge.config.get("model") if a.judge else None) or "?"
        protocol = (a.judge.protocol if a.judge else None) or "?"
        rows.insert(
            0,
            [
                f"locoscore ({protocol}, {model}; mean ± std over runs)",
                *(
                    DASH if (c := ours.by_category.get(cid)) is None else fmt(c.mean, 2, c.run_std)
                    for cid in ids
                ),
                fmt(ours.overall.mean, 2, ours.overall.run_std),
                str(ours.overall.n),
            ],
        )
    note = (
        "The input file carries its own judge verdicts (field "
        f"'{recorded.get('field')}'). Recorded J = the mean over runs of each run's share of "
        "questions judged correct; ± is the sample std over runs; majority vote counts a "
        "question when more than half of its runs said correct. These numbers are the source "
        "harness's, with its own prompt and judge, not locoscore's."
    )
    return [
        Heading("J recorded by the source harness", 3),
        Table(headers, rows, numeric=(False, *(True for _ in ids), True, True)),
        Paragraph(note),
    ]
