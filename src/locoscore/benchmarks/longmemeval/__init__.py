"""LongMemEval (Wu et al., ICLR 2025) behind the benchmark interface.

Six question types (abstention is not one: the `_abs` suffix marks it and the question keeps
its base type), one haystack per question, a question date the reader must be given, and
retrieval metrics and judge rules as the official evaluation defines them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from locoscore.benchmarks.base import Benchmark, QuestionType
from locoscore.benchmarks.longmemeval import conversations as convs
from locoscore.benchmarks.longmemeval.data import (
    FETCH_NAMES,
    KNOWN_FILES,
    QUESTION_TYPES,
    LongMemEvalData,
    fetch_longmemeval,
    load_longmemeval,
)
from locoscore.data.conversation import Conversation, Question
from locoscore.results.board_row import BoardRow
from locoscore.results.layout import AUDIT_JSON, AUDIT_MD, HYPOTHESES, JUDGMENTS, SUMMARY

TYPE_IDS = {key: i for i, key in enumerate(QUESTION_TYPES, 1)}

ANSWER_PROMPT = """\
You are a chat assistant with a long memory of your past chat sessions with this user.
Below are the parts of those sessions your memory retrieved for the question, best match
first, each labelled with the date of the session it comes from.

Retrieved memories:
{context}

Current date: {question_date}
Question: {question}

How to answer:
- Answer from the retrieved memories. If they do not contain the information the question
  asks for, say that you do not know it rather than guessing.
- Work out dates and durations from the session dates and the current date above.
- When the user's information changed over time, the latest session holds what is true now.
- Be concise: give the answer, with a short reason only when it needs one.

Answer:"""


class LongMemEval(Benchmark):
    name = "longmemeval"
    description = "LongMemEval (Wu et al., ICLR 2025): 500 questions, one haystack each"
    types = tuple(QuestionType(i, key, key) for key, i in TYPE_IDS.items())
    known_files = KNOWN_FILES
    answer_prompt_name = "locoscore-lme-answer-v1"
    commands = frozenset({"run", "dataset", "judge", "report", "compare", "audit"})
    judge_protocols = ("binary",)
    takes_type_templates = True  # judging.with_user_templates
    no_official_judge = (
        "its default judge, 'locoscore', is the official per-type judge rules in locoscore's "
        "words (the official prompt texts: judge --type-template TYPE=FILE)"
    )
    run_files = (HYPOTHESES, SUMMARY)  # outputs.write_outputs
    fetch_names = FETCH_NAMES
    probe_checks = ("reset", "attribution")

    def fetch(self, name: str, url: str | None, dest: Path | None) -> Path:
        return fetch_longmemeval(name, url, dest)

    def load(self, path: str | Path | None) -> LongMemEvalData:
        return load_longmemeval(path)

    def data_version(self, data: LongMemEvalData) -> str:
        return data.version

    def describe_data(self, data: LongMemEvalData) -> dict[str, Any]:
        return {**super().describe_data(data), "file": data.path.name}

    def type_counts(self, data: LongMemEvalData) -> dict[int, int]:
        counts = dict.fromkeys(self.type_order, 0)
        for meta in data.questions:
            counts[TYPE_IDS[meta.question_type]] += 1
        return counts

    def conversations(self, data: LongMemEvalData) -> list[Conversation]:
        return convs.conversations(data)

    def all_questions(self, data: LongMemEvalData) -> list[Question]:
        return convs.questions(data, TYPE_IDS)

    def gold_evidence(self, data: LongMemEvalData, question: Question) -> tuple[str, ...] | None:
        meta = convs.metas_by_id(data).get(question.question_id)
        return (convs.gold_turns(meta) or None) if meta is not None else None

    def published(self) -> tuple[Any, ...]:
        from locoscore.benchmarks.longmemeval.baselines import BASELINES

        return BASELINES

    def default_answer_prompt_text(self) -> str:
        return ANSWER_PROMPT

    def score_run(
        self, predictions: Path, data: LongMemEvalData, out: Path, run_section: dict[str, Any]
    ) -> dict[str, Any]:
        from locoscore.benchmarks.longmemeval.outputs import write_outputs

        return write_outputs(predictions, data, out, run_section)

    def board_row(self, directory: Path) -> BoardRow:
        from locoscore.benchmarks.longmemeval.board import ROW_PARTS
        from locoscore.generic.board_rows import judged_row

        return judged_row(directory, ROW_PARTS)

    def report(self, directory: Path) -> list[Path]:
        from locoscore.benchmarks.longmemeval.report import write_report
        from locoscore.claim.refresh import write_claim

        write_claim(directory, self)  # the report's first box
        return write_report(directory)

    def compare(self, dir_a: Path, dir_b: Path, out: Path) -> dict[str, Any]:
        from locoscore.benchmarks.longmemeval.report import compare_folders

        return compare_folders(dir_a, dir_b, out)

    async def audit(
        self, data: LongMemEvalData, settings: Any, out: Path, **options: Any
    ) -> tuple[Any, dict[str, Any] | None]:
        from locoscore.benchmarks.longmemeval.audit import audit_longmemeval

        return await audit_longmemeval(data, settings, out, sampler=self.draw_sample, **options)

    def rederive_judgments(self, directory: Path, data: Any, out: Path) -> list[str]:
        """J from judgments.jsonl (`rederive`)."""
        from locoscore.benchmarks.longmemeval.rederive import rederive_judgments

        return rederive_judgments(directory, data, out)

    async def judge(
        self, data: LongMemEvalData, answers: Path, settings: Any, out: Path, **options: Any
    ) -> tuple[Any, dict[str, Any] | None]:
        from locoscore.benchmarks.longmemeval.judge_pass import judge_longmemeval

        return await judge_longmemeval(
            data, answers, settings, out, sampler=self.draw_sample, **options
        )

    def judge_lines(self, section: dict[str, Any], out: Path) -> list[str]:
        from locoscore.judge.folder import over_phrase
        from locoscore.report.spend import judge_section_lines

        lines = judge_section_lines(section)
        strict, submitted = section["missing_counts_as_wrong"], section["over_submitted"]
        for label, block in (("missing counted as wrong", strict), ("over submitted", submitted)):
            overall, task = block["overall"], block["task_averaged"]
            lines.append(
                f"J {label}: overall {overall['accuracy']} {overall['ci95']}, task-averaged "
                f"{task['accuracy']}, abstention {block['abstention']['accuracy']}"
                + (f" {over_phrase(section)}" if block is strict and "scored" in section else "")
            )
        unjudged = section.get("unjudged") or 0
        lines.append(
            f"{section['submitted']} of {section['questions']} submitted, "
            f"{section['missing']} missing"
            + (f", {unjudged} without a judge verdict (not in J)" if unjudged else "")
            + f"; wrote {out}/{JUDGMENTS}, {SUMMARY}"
        )
        return lines

    def audit_lines(self, document: dict[str, Any], out: Path) -> list[str]:
        lines = []
        for name, block in document["sets"].items():
            overall = block["accepted"].get("overall", {})
            lines.append(
                f"{name}: {overall.get('rate', 0):.1f} % accepted (should be {block['expected']})"
            )
        lines.append(f"wrote {out}/{AUDIT_MD}, {AUDIT_JSON}")
        return lines


LONGMEMEVAL = LongMemEval()
