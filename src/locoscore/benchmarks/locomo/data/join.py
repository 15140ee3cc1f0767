"""Join prediction records to the dataset's questions, and report what did not fit.

A record is matched, in order of preference:
1. by id, (`sample_id`, `qa_index`), when the record has both;
2. by conversation (from `conversation`, or the position of `sample_id` in the dataset) and
   exact question text; a text asked twice in one conversation is matched in file order to
   the dataset's occurrences in order;
3. with neither, by exact question text alone: when the text is unique in the dataset, or,
   when it is not, to the first unused occurrence whose gold equals the record's gold.

Matched records get the dataset's `sample_id`, `qa_index`, `conversation`, `category`, gold
and `gold_field` (a copy; the input records are not changed): the released data decides the
scoring rule and the gold, and any disagreement of the file is reported. Unmatched records
stay in the output and are still scored; a second record for an already matched question
is a duplicate and is left out, so each question is scored once. Gold is compared as
`str()`, like the scorers do.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from locoscore.benchmarks.locomo.data.dataset import Dataset
from locoscore.benchmarks.locomo.data.models import PredictionRecord, QAItem
from locoscore.errors import InputError

EXAMPLES = 5


@dataclass
class JoinReport:
    matched: int
    unmatched: list[str]
    duplicates: list[str]
    # Each mismatch: {"key": "conv-26#3", "question", "given" (file), "dataset"}.
    gold_mismatches: list[dict[str, Any]]
    category_mismatches: list[dict[str, Any]] = field(default_factory=list)
    question_mismatches: list[dict[str, Any]] = field(default_factory=list)

    @property
    def problem_count(self) -> int:
        return sum(len(getattr(self, name)) for name in _PROBLEMS)

    def to_dict(self) -> dict[str, Any]:
        """Counts and the first few examples of each kind of problem."""
        out: dict[str, Any] = {"matched": self.matched}
        for name in _PROBLEMS:
            found = getattr(self, name)
            out[name] = {"count": len(found), "examples": found[:EXAMPLES]}
        return out


_PROBLEMS = (
    "unmatched",
    "duplicates",
    "gold_mismatches",
    "category_mismatches",
    "question_mismatches",
)


class _Questions:
    """The dataset's questions by id, by (conversation, text) and by text; tracks use."""

    def __init__(self, dataset: Dataset) -> None:
        self.by_id = dataset.items
        self.conversation_of = {s.sample_id: i for i, s in enumerate(dataset.samples)}
        self.conversations = len(dataset.samples)
        self.by_conversation_text: dict[tuple[int, str], list[QAItem]] = defaultdict(list)
        self.by_text: dict[str, list[QAItem]] = defaultdict(list)
        for position, sample in enumerate(dataset.samples):
            for qa in sample.qa:
                self.by_conversation_text[(position, qa.question)].append(qa)
                self.by_text[qa.question].append(qa)
        self.used: set[tuple[str, int]] = set()

    def unused(self, candidates: list[QAItem]) -> list[QAItem]:
        return [qa for qa in candidates if (qa.sample_id, qa.qa_index) not in self.used]

    def find(self, record: PredictionRecord) -> tuple[QAItem | None, str]:
        """The question for `record`, or None and why: "duplicate" or a reason it is unmatched."""
        if record.sample_id is not None and record.qa_index is not None:
            qa = self.by_id.get((record.sample_id, record.qa_index))
            if qa is None:
                return None, f"no question {record.sample_id}#{record.qa_index} in the dataset"
            return self._claim([qa], "duplicate")
        conversation = record.conversation
        if record.sample_id is not None:
            conversation = self.conversation_of.get(record.sample_id)
            if conversation is None:
                return None, f"no sample {record.sample_id!r} in the dataset"
        if conversation is not None:
            if conversation >= self.conversations:
                return None, f"no conversation {conversation} (dataset has {self.conversations})"
            candidates = self.by_conversation_text.get((conversation, record.question), [])
            if not candidates:
                return None, f"question not in conversation {conversation}"
            return self._claim(candidates, "duplicate")
        candidates = self.by_text.get(record.question, [])
        if not candidates:
            return None, "question not in the dataset"
        if len(candidates) > 1:
            open_ = self.unused(candidates)
            same_gold = [qa for qa in open_ if qa.gold_text == record.answer_text]
            if open_ and not same_gold:
                return None, f"question asked {len(candidates)} times in the dataset; no id"
            candidates = same_gold or candidates
        return self._claim(candidates, "duplicate")

    def _claim(self, candidates: list[QAItem], taken: str) -> tuple[QAItem | None, str]:
        open_ = self.unused(candidates)
        if not open_:
            return None, taken
        qa = open_[0]
        self.used.add((qa.sample_id, qa.qa_index))
        return qa, ""


def _describe(record: PredictionRecord, why: str) -> str:
    return f"{record.source}: {record.question!r} ({why})"


def _compare(record: PredictionRecord, qa: QAItem, report: JoinReport) -> str | None:
    """Note every way `record` differs from its question; the first differing field, if any."""
    key = f"{qa.sample_id}#{qa.qa_index}"
    checks: tuple[tuple[str, list[dict[str, Any]], bool, object, object], ...] = (
        (
            "question",
            report.question_mismatches,
            record.question != qa.question,
            record.question,
            qa.question,
        ),
        (
            "category",
            report.category_mismatches,
            record.category != qa.category,
            record.category,
            qa.category,
        ),
        (
            "answer",
            report.gold_mismatches,
            record.answer_text != qa.gold_text,
            record.answer,
            qa.gold,
        ),
    )
    first = None
    for name, found, differs, given, expected in checks:
        if differs:
            found.append({"key": key, "question": qa.question, "given": given, "dataset": expected})
            first = first or name
    return first


def join_to_dataset(
    records: list[PredictionRecord],
    dataset: Dataset,
    *,
    strict: bool = False,
    file: str | Path | None = None,
) -> tuple[list[PredictionRecord], JoinReport]:
    """Match every record to its dataset question; see the module docstring for the rules.

    `strict=True` raises InputError on any unmatched, duplicated or mismatched record
    (`file` names the predictions file in that message).
    """
    questions = _Questions(dataset)
    report = JoinReport(matched=0, unmatched=[], duplicates=[], gold_mismatches=[])
    joined: list[PredictionRecord] = []
    first_problem: tuple[PredictionRecord, str, str] | None = None  # record, why, field
    for record in records:
        qa, why = questions.find(record)
        if qa is None:
            (report.duplicates if why == "duplicate" else report.unmatched).append(
                _describe(record, why)
            )
            first_problem = first_problem or (record, why, "question")
            if why != "duplicate":
                joined.append(record)
            continue
        report.matched += 1
        differing = _compare(record, qa, report)
        if differing is not None:
            first_problem = first_problem or (record, "differs from the dataset", differing)
        joined.append(
            record.model_copy(
                update={
                    "sample_id": qa.sample_id,
                    "qa_index": qa.qa_index,
                    "conversation": questions.conversation_of[qa.sample_id],
                    # the dataset is the authority: a file's mislabelled category or edited
                    # gold is reported above and not scored
                    "category": qa.category,
                    "answer": qa.gold,
                    "gold_field": qa.gold_field,
                }
            )
        )
    if strict and first_problem is not None:
        record, why, field_name = first_problem
        counts = ", ".join(
            f"{len(getattr(report, name))} {name.replace('_', ' ')}"
            for name in _PROBLEMS
            if getattr(report, name)
        )
        raise InputError(
            f"join with the dataset failed ({counts}); first: {why}",
            file=None if file is None else str(file),
            record=record.source.removeprefix("record ") or None,
            field=field_name,
        )
    return joined, report
