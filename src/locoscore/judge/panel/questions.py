"""A judged folder's questions as a panel compares them: id, type, the judge's score.

`Benchmark.judged_questions` reads them; the default here takes each question's headline
score from the benchmark's own board row (`Benchmark.board_row`: what its board ranks by,
0-100), else `j` (0-1) of scores.jsonl as the generic judge writes it, and the type from
scores.jsonl. A benchmark whose folder is shaped otherwise overrides the hook.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from locoscore.errors import InputError
from locoscore.results.board_row import BoardRow, read_scores
from locoscore.results.layout import SCORES

# where a type name may sit in a scores.jsonl line, first found wins
_TYPE_FIELDS = ("type", "question_type", "ability")


@dataclass(frozen=True)
class JudgedQuestion:
    question_id: str
    type: str
    score: float | None  # the judge's score 0-100 (the mean over its runs); None: no verdict
    question: str | None = None  # the text, for reading the questions judges split on

    @property
    def verdict(self) -> bool | None:
        """Right or wrong as the panel counts agreement: a score of 50 or more is right
        (a binary judge's mean over runs is a majority vote; a rubric's, half marks)."""
        return None if self.score is None else self.score >= 50


def score_0_100(value: object, where: Path, record: str, field: str, scale: float) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"expected a number, got {value!r}", file=str(where), record=record,
                         field=field)  # fmt: skip
    return float(value) * scale


def generic_judged_questions(directory: Path, board: BoardRow | None) -> list[JudgedQuestion]:
    """`board`: the folder's board row, whose per-question scores win when it has a metric
    (a question without one, e.g. not answered, has no verdict)."""
    own = board.scores if board is not None and board.metrics else None
    out = []
    for number, row in enumerate(read_scores(directory), 1):
        qid = str(row["question_id"])
        kind = next((row[k] for k in _TYPE_FIELDS if isinstance(row.get(k), str)), "")
        if own is not None:
            score = own.get(qid)
        else:
            score = score_0_100(row.get("j"), directory / SCORES, f"line {number}", "j", 100.0)
        text = row.get("question")
        out.append(JudgedQuestion(qid, kind, score, text if isinstance(text, str) else None))
    return out
