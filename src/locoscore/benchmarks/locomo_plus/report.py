"""A LoCoMo-Plus results folder as its report (report.md and report.html from the same
blocks) and its board row: J overall and per relation type, each with its 95 % interval,
and the strict J without the short-gap items, shown beside it."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from locoscore.report.files import write_report_files
from locoscore.report.numbers import mean_ci
from locoscore.results.board_row import BoardMetric, BoardRow, cell, read_summary
from locoscore.results.folder import answered_by

_NOTE = (
    "Each item is its own conversation: LoCoMo conversation i % 10 with the cue added as a "
    "dated session, the stated time gap before the trigger (see the signature). J is the "
    "mean judge level per reply (correct 1, partial 0.5, wrong 0) over its runs; a failed "
    "judge call is no verdict, counted apart, never a wrong answer. The short-gap items "
    "(the cue session right before the trigger) are left out of the strict J."
)


_OFFICIAL_NOTE = (
    "Judged by the official protocol (`--protocol official`): the official Cognitive judge "
    "prompt read from the official repository's files, two levels, the official reply "
    "reader (its quirks kept and counted above), J the mean over every record with a failed "
    "call counted 0. The short-gap items are those whose cue the official stitching puts "
    "right before the trigger."
)


def write_report(directory: Path, description: str) -> list[Path]:
    from locoscore.judge.folder import over_phrase
    from locoscore.report.document import Banner, Block, Heading, Notes, Paragraph, Table

    summary = read_summary(directory)
    run = summary.get("run") or {}
    title = f"{answered_by(run, 'answers')} on {description}"
    from locoscore.claim.render import card_blocks

    blocks: list[Block] = [Heading(title, 1), *card_blocks(summary.get("claim"))]
    judge = summary.get("judge") or {}
    sample = judge.get("sample") or run.get("sample")  # a judged run's, else the run's
    if sample:
        blocks.append(Banner(f"Subset ({sample['signature']}): not the full benchmark."))
    for verb, part in (("answered", run.get("answer")), ("judged", judge)):
        if ((part or {}).get("served") or {}).get("fake"):
            blocks.append(Banner(f"{verb.capitalize()} by locoscore's fake provider, not a model."))
    answers = summary.get("answers") or {}
    parts = []
    if judge:
        strict, apart = judge.get("strict") or {}, judge.get("short_gap")
        parts.append(
            f"J: {mean_ci(judge['overall'])} {over_phrase(judge)}; strict J (without the "
            f"{strict.get('left_out', 0)} short-gap items): "
            f"{mean_ci(strict.get('overall'))}; short-gap items alone: {mean_ci(apart)}"
        )
    if answers:
        parts.append(f"{answers['answered']} of {answers['questions']} triggers answered")
    if judge.get("failed_answers"):  # never sent to the judge; they count 0 and are named
        parts.append(f"{judge['failed_answers']} failed answers count 0 in J")
    official = judge.get("official")
    if official:  # the official aggregation and its reading quirks, counted
        parts.append(
            f"official protocol: {official['overall_avg']:.4f} over all "
            f"{official['total_samples']} records (official judge prompt and reader; a failed "
            f"call counts 0: {official['failed_calls_counted_0']}); replies containing "
            f"'incorrect' read as correct: {official['incorrect_read_as_correct']}; read as "
            f"partial (0.5): {official['read_as_partial']}"
        )
    blocks.append(Paragraph("; ".join(parts) or "Not judged yet."))
    if judge:
        strict_types = (judge.get("strict") or {}).get("by_type") or {}
        rows = [
            [name, str(block["count"]), mean_ci(block), mean_ci(strict_types.get(name))]
            for name, block in judge["by_type"].items()
        ]
        blocks += [
            Heading("By relation type"),
            Table(["relation", "n", "J", "J strict"], rows, numeric=(False, True, True, True)),
        ]
    signatures = [s for s in (run.get("signature"), judge.get("signature")) if s]
    notes = [_OFFICIAL_NOTE if judge.get("official") else _NOTE]
    notes += [f"signature: {s}" for s in signatures]
    data = judge.get("dataset") or run.get("dataset") or {}
    if data:
        notes.append(f"data: {data.get('path')} (sha256 {data.get('sha256')})")
    blocks += [Heading("How to read it"), Notes(notes)]
    return write_report_files(directory, blocks, title)


def board_row(directory: Path) -> BoardRow:
    """The generic row (J, else nothing) with the strict J as its second metric."""
    from locoscore.generic.board_rows import board_row as generic_row

    row: BoardRow = generic_row(directory)
    strict = (read_summary(directory).get("judge") or {}).get("strict")
    if not row.metrics or not isinstance(strict, dict):
        return dataclasses.replace(row, type_word="relation")

    def cell_of(block: dict[str, Any], name: str) -> Any:
        return cell(block.get("mean"), block.get("ci95"), block.get("count"), directory, name)

    extra = BoardMetric(
        "j_strict",
        "J strict",
        cell_of(strict["overall"], "j.strict.overall"),
        {t: cell_of(b, f"j.strict.by_type.{t}") for t, b in strict["by_type"].items()},
    )
    return dataclasses.replace(row, metrics=(*row.metrics, extra), type_word="relation")
