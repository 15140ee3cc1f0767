"""PersonaMem's accuracy: each answer parsed strictly (`options.parse_reply`) and checked
against the shown letter(s) of the gold; an unparsable reply or a failed answer scores 0 and
stays in the denominator. Overall and per question type with bootstrap 95 % intervals
(`generic.scoring.aggregate`). The floors no model is needed for, and the result's margin
over the best of them, are added by `generic.floors.record_floors`, as for any benchmark.

scores.jsonl and summary.json keep the generic shape (`metric` column and section), so the
generic board, compare and floors read them; summary.json adds `answers.unparsable`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl, write_json_atomic, write_jsonl_atomic
from locoscore.benchmarks.personamem.data import Item, PersonaMemData
from locoscore.benchmarks.personamem.options import correct_letters, parse_reply
from locoscore.errors import InputError
from locoscore.generic.scoring import aggregate
from locoscore.results.layout import SCORES, SUMMARY

METRIC = {"name": "accuracy", "label": "accuracy"}


def score_rows(
    records: Sequence[tuple[int, Mapping[str, Any]]],
    items: Mapping[str, Item],
    seed: int,
    source: Path,
    key: str = "prediction",
) -> list[dict[str, Any]]:
    """One scores.jsonl line per answer: the letter read, the right letter(s), 1 or 0."""
    rows, seen = [], set()
    for number, record in records:
        where = f"line {number}"
        qid = record.get("question_id")
        if not isinstance(qid, str) or qid not in items:
            raise InputError(
                f"not a question of this PersonaMem file: {qid!r}",
                file=str(source), record=where, field="question_id",
            )  # fmt: skip
        if qid in seen:
            raise InputError("answered twice", file=str(source), record=where, field="question_id")
        seen.add(qid)
        failed = record.get("error") is not None
        reply = record.get(key)
        if not failed and not isinstance(reply, str):
            raise InputError(
                f"expected a text, got {reply!r}", file=str(source), record=where, field=key
            )
        item = items[qid]
        right = correct_letters(item, seed)
        choice = None if failed else parse_reply(str(reply))
        rows.append(
            {
                "question_id": qid,
                "type": item.type_key,
                "answered": not failed,
                "choice": choice,
                "unparsable": not failed and choice is None,
                "correct": "".join(sorted(right)),
                "metric": 1.0 if choice in right else 0.0,
            }
        )
    return rows


def write_scores(
    rows: list[dict[str, Any]],
    type_order: Sequence[str],
    fields: dict[str, Any],
    out: Path,
) -> dict[str, Any]:
    values = {r["question_id"]: r["metric"] for r in rows}
    types = {r["question_id"]: r["type"] for r in rows}
    summary: dict[str, Any] = {
        **fields,
        "answers": {
            "questions": len(rows),
            "answered": sum(r["answered"] for r in rows),
            "failed": sum(not r["answered"] for r in rows),
            "unparsable": sum(r["unparsable"] for r in rows),
        },
        "metric": {**METRIC, **aggregate(values, types, list(type_order))},
    }
    write_jsonl_atomic(out / SCORES, rows)
    write_json_atomic(out / SUMMARY, summary)
    return summary


def read_answers(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """An answers file (JSONL, one object a line) with each line's number; bad input when
    it is not one."""
    from locoscore.results.answers_file import object_lines

    records = list(object_lines(path, "answers file"))
    if not records:
        raise InputError("no answers in the file", file=str(path))
    return records


def items_by_id(data: PersonaMemData) -> dict[str, Item]:
    return {i.question_id: i for i in data.items}


def read_records(predictions: Path) -> list[tuple[int, dict[str, Any]]]:
    """A run's predictions.jsonl (written by locoscore: one record a line)."""
    return list(enumerate(read_jsonl(predictions), 1))
