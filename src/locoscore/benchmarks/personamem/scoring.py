"""PersonaMem's accuracy under one of its two protocols (`Protocol`), each reply's reading
recorded in its scores.jsonl line (`choice`, `read`):

- **locoscore** (the default): the options shown in the seeded order, the reply read by
  locoscore's parser (`replies.read_reply`), right when it names a shown letter of the gold
  (either letter of a doubled gold); a refused (unparsable) reply or a failed answer scores 0
  and stays in the denominator.
- **official**: the options in the stored order, the reply read by the official parser
  (`replies.read_official`), right when a reading is exactly the stored gold letter; a failed
  answer is left out of the denominator, as the official code skips a question whose call
  raised (counted in `answers.failed`).

Overall and per question type with bootstrap 95 % intervals (`generic.scoring.aggregate`).
The floors no model is needed for, and the result's margin over the best of them, are added
by `generic.floors.record_floors`, as for any benchmark.

scores.jsonl and summary.json keep the generic shape (`metric` column and section), so the
generic board, compare and floors read them; summary.json adds `answers` (with `unparsable`)
and `scoring` (the protocol and its signature).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl, write_json_atomic, write_jsonl_atomic
from locoscore.benchmarks.personamem.data import Item, PersonaMemData
from locoscore.benchmarks.personamem.options import correct_letters, shown_options
from locoscore.benchmarks.personamem.protocol import Protocol
from locoscore.benchmarks.personamem.replies import read_official, read_reply
from locoscore.errors import InputError
from locoscore.generic.scoring import aggregate
from locoscore.results.layout import SCORES, SUMMARY


def score_rows(
    records: Sequence[tuple[int, Mapping[str, Any]]],
    items: Mapping[str, Item],
    protocol: Protocol,
    source: Path,
    key: str = "prediction",
) -> list[dict[str, Any]]:
    """One scores.jsonl line per answer: the letter read and how, the right letter(s), 1 or
    0 (None: a failed answer the official protocol leaves out)."""
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
        row = {"question_id": qid, "type": item.type_key, "answered": not failed}
        if failed:  # the official code skips a question whose call raised: left out
            left_out = protocol.official
            row |= {
                "choice": None,
                "read": "failed: left out" if left_out else "failed: scored 0",
                "unparsable": False,
                "correct": _right(item, protocol),
                "metric": None if left_out else 0.0,
            }
        else:
            row |= _read(str(reply), item, protocol)
        rows.append(row)
    return rows


def _right(item: Item, protocol: Protocol) -> str:
    if protocol.official:
        return item.gold_letter
    return "".join(sorted(correct_letters(item, protocol.seed)))


def _read(reply: str, item: Item, protocol: Protocol) -> dict[str, Any]:
    if protocol.official:
        official = read_official(reply)
        right = official.right(item.gold_letter)
        # credited: the gold letter (a reading named it); else the one letter it reads
        choice = item.gold_letter if right else official.choice
        how = official.how
    else:
        reading = read_reply(reply, shown_options(item, protocol.seed))
        choice, how = reading.letter, reading.how
        right = choice in correct_letters(item, protocol.seed)
    return {
        "choice": choice,
        "read": how,
        "unparsable": choice is None,
        "correct": _right(item, protocol),
        "metric": 1.0 if right else 0.0,
    }


def write_scores(
    rows: list[dict[str, Any]],
    type_order: Sequence[str],
    fields: dict[str, Any],
    out: Path,
    label: str,
) -> dict[str, Any]:
    values = {r["question_id"]: r["metric"] for r in rows if r["metric"] is not None}
    types = {r["question_id"]: r["type"] for r in rows}
    summary: dict[str, Any] = {
        **fields,
        "answers": {
            "questions": len(rows),
            "answered": sum(r["answered"] for r in rows),
            "failed": sum(not r["answered"] for r in rows),
            "unparsable": sum(r["unparsable"] for r in rows),
            "counted": len(values),
        },
        "metric": {
            "name": "accuracy",
            "label": label,
            **aggregate(values, types, list(type_order)),
        },
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
