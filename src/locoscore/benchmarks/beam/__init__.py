"""BEAM (Tavakoli et al., 2025) behind the benchmark interface.

Ten abilities are its question types (ids 1-10 in the official column order); a question's
identity is `<conversation>:<ability>:<index>`; a batch is a session, dated by its first
user message's anchor; message ids are the evidence units; a question is asked after the
last session, whose anchor is the current date the default answer prompt gives (the official
baselines give none). Scoring is by rubric (`benchmarks.beam.judge`), not lexical overlap.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from locoscore._io import sha256_text
from locoscore.benchmarks.base import Benchmark, QuestionType
from locoscore.benchmarks.beam.data import ABILITY_IDS, BeamDataset, load_beam
from locoscore.benchmarks.beam.fetch import FETCH_NAMES, default_destination, fetch_beam
from locoscore.data.conversation import Conversation, Question
from locoscore.errors import DatasetError
from locoscore.results.board_row import BoardRow
from locoscore.results.layout import AUDIT_FILES, SUMMARY

ABILITY_NAMES = {
    "abstention": "abstention",
    "contradiction_resolution": "contradiction resolution",
    "event_ordering": "event ordering",
    "information_extraction": "information extraction",
    "instruction_following": "instruction following",
    "knowledge_update": "knowledge update",
    "multi_session_reasoning": "multi-session reasoning",
    "preference_following": "preference following",
    "summarization": "summarization",
    "temporal_reasoning": "temporal reasoning",
}
EVENT_ORDERING = ABILITY_IDS["event_ordering"]

BEAM_ANSWER_PROMPT = """\
You are the assistant in a long-running conversation with a user. Below are the parts of \
that conversation a memory system retrieved for the user's new message, best match first; \
each is labelled with the date of the session it comes from.

Today's date: {question_date}

Retrieved memories:
{context}

The user's new message: {question}

How to reply:
- Reply as the assistant, using the retrieved memories. Follow the instructions and \
preferences the user gave earlier in the conversation.
- Where the user's information changed over time, use the latest; where it contradicts \
itself, say so and ask which is right.
- If the memories do not hold what the message asks about, say that the conversation does \
not contain it rather than guessing.
- When asked to list things in order, give one item per line.

Reply:"""


def opaque_question_id(question_id: str) -> str:
    """What a system is shown: BEAM's own id names the ability (`1:abstention:0` tells a
    system the question has no answer), so systems get a hash of it."""
    return "beam-q-" + sha256_text(question_id)[:12]


class Beam(Benchmark):
    types = tuple(QuestionType(i, key, ABILITY_NAMES[key]) for key, i in ABILITY_IDS.items())
    commands = frozenset({"run", "dataset", "judge", "report", "compare", "audit"})
    judge_protocols = ("beam", "beam-official")  # `folder.PROTOCOLS` (rubric means beam)
    no_official_judge = (
        "its official scoring is a judge protocol, not a prompt variant (judge --protocol "
        "beam-official)"
    )
    run_files = (SUMMARY,)  # outputs.write_outputs
    sample_stratum = "ability"  # a sample signs `strat-ability`, by the ten abilities

    def fetch(self, name: str, url: str | None, dest: Path | None) -> Path:
        return fetch_beam(name, url, dest)

    answer_prompt_name = "locoscore-beam-answer-v1"
    # Measured on 100K (cl100k tokens of the gold answers): summarization's golds run to a
    # median of 206 and a longest of 280 (213 words), event ordering's to 169, every other
    # ability's to 122 at most. 512 holds the longest gold with ~1.8x room for another
    # tokenizer and a list's formatting; 128 cut every summary mid-way.
    answer_max_tokens = 512

    def __init__(self, name: str, *, truncated: bool) -> None:
        self.name = name
        self.truncated = truncated
        self.fetch_names = FETCH_NAMES if truncated else {}  # one download serves both
        which = "chat_trunecated.json where present" if truncated else "always chat.json"
        self.description = (
            f"BEAM (Tavakoli et al., 2025): a size folder such as 100K/, ten abilities; {which}"
        )

    def load(self, path: str | Path | None) -> BeamDataset:
        if path is None:
            cached = default_destination("100K")
            if not cached.is_dir():
                raise DatasetError(
                    "BEAM needs --dataset DIR (a size folder such as 100K/), or "
                    "`locoscore dataset fetch beam-100k` first"
                )
            path = cached
        return load_beam(Path(path), truncated=self.truncated)

    def data_version(self, data: BeamDataset) -> str:
        return f"beam-{data.size.lower()}-{'trunc' if data.truncated else 'full'}"

    def describe_data(self, data: BeamDataset) -> dict[str, Any]:
        return {
            **super().describe_data(data),
            "size": data.size,
            "conversation_file": "chat_trunecated.json where present"
            if data.truncated
            else "chat.json",
            "anomalies": data.anomalies.to_json(),
        }

    def conversations(self, data: BeamDataset) -> list[Conversation]:
        return list(data.conversations)

    def all_questions(self, data: BeamDataset) -> list[Question]:
        return [
            Question(
                question_id=q.question_id,
                conversation_id=q.conversation_id,
                text=q.text,
                category=ABILITY_IDS[q.ability],
                gold=q.gold or "",
                evidence=q.evidence,
                date_iso=q.date_iso,
                record_ids={
                    "conversation": q.conversation_id,
                    "ability": q.ability,
                    "index": q.index,
                },
                query_id=opaque_question_id(q.question_id),
            )
            for q in data.questions
        ]

    def default_answer_prompt_text(self) -> str:
        return BEAM_ANSWER_PROMPT

    def published(self) -> tuple[Any, ...]:
        from locoscore.benchmarks.beam.baselines import PUBLISHED

        return PUBLISHED

    def score_run(
        self, predictions: Path, data: BeamDataset, out: Path, run_section: dict[str, Any]
    ) -> dict[str, Any]:
        from locoscore.benchmarks.beam.outputs import write_outputs

        return write_outputs(predictions, data, out, run_section, self.name)

    def rederive_judgments(self, directory: Path, data: Any, out: Path) -> list[str]:
        """The BEAM score from judgments.jsonl (`rederive`)."""
        from locoscore.benchmarks.beam.rederive import rederive_judgments

        return rederive_judgments(directory, data, out)

    async def judge(
        self, data: BeamDataset, answers: Path, settings: Any, out: Path, **options: Any
    ) -> tuple[Any, dict[str, Any] | None]:
        from locoscore.benchmarks.beam.folder import judge_folder

        if options.pop("type_templates", None):
            raise DatasetError("BEAM has no per-type judge rules", field="--type-template")
        result = await judge_folder(
            answers, data, settings, out, benchmark=self.name, sampler=self.draw_sample, **options
        )
        return result, None if result.summary is None else result.summary["judge"]

    async def audit(
        self, data: BeamDataset, settings: Any, out: Path, **options: Any
    ) -> tuple[Any, dict[str, Any] | None]:
        from locoscore.benchmarks.beam.audit import run_beam_audit

        result = await run_beam_audit(data, settings, out, sampler=self.draw_sample, **options)
        return result, result.document

    def dry_run_lines(self, result: Any) -> list[str]:
        from locoscore.benchmarks.beam.folder import dry_run_lines

        return dry_run_lines(result)

    def judge_lines(self, section: dict[str, Any], out: Path) -> list[str]:
        from locoscore.benchmarks.beam.folder import judge_lines

        return judge_lines(section, out)

    def audit_lines(self, document: dict[str, Any], out: Path) -> list[str]:
        lines = [f"audit: {document['signature']}"]
        for name, entry in document["sets"].items():
            mean = "n/a" if entry["mean"] is None else f"{100 * entry['mean']:.1f}"
            lines.append(f"{name:<10} n={entry['n']:<4} mean score {mean}")
        lines.append(f"wrote {out}/{', '.join(AUDIT_FILES)}")
        return lines

    def headline_scores(self, directory: Path) -> tuple[str, dict[str, float]] | None:
        """The card's mean is over the questions: named as the question-weighted mean, not
        the mean of the ten abilities the board leads with."""
        row = self.board_row(directory)
        if row is None or not row.metrics:
            return None
        return "Question-weighted mean", dict(row.scores)

    def board_row(self, directory: Path) -> BoardRow:
        from locoscore.benchmarks.beam.board import row_parts
        from locoscore.generic.board_rows import judged_row

        return judged_row(directory, row_parts(ABILITY_NAMES))

    def report(self, directory: Path) -> list[Path]:
        from locoscore.benchmarks.beam.folder import write_report
        from locoscore.claim.refresh import write_claim

        write_claim(directory, self)  # the report's first box
        return write_report(directory)

    def compare(self, dir_a: Path, dir_b: Path, out: Path) -> dict[str, Any]:
        from locoscore.benchmarks.beam.compare import compare_folders

        return compare_folders(dir_a, dir_b, out)


BEAM = Beam("beam", truncated=True)
BEAM_FULL = Beam("beam-full", truncated=False)
