"""A judged folder's questions as a panel compares them: id, type, the judge's score.

`Benchmark.judged_questions` reads them; the default here reads the scores.jsonl the
generic judge writes (`question_id`, the type, `j` on 0-1). A benchmark whose folder is
shaped otherwise overrides the hook.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from locoscore.errors import InputError
from locoscore.results.board_row import read_scores
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


def generic_judged_questions(directory: Path) -> list[JudgedQuestion]:
    out = []
    for number, row in enumerate(read_scores(directory), 1):
        kind = next((row[k] for k in _TYPE_FIELDS if isinstance(row.get(k), str)), "")
        score = score_0_100(row.get("j"), directory / SCORES, f"line {number}", "j", 100.0)
        out.append(JudgedQuestion(str(row["question_id"]), kind, score, row.get("question")))
    return out
