"""LoCoMo-Plus (arXiv 2602.10715) behind the benchmark interface: 401 "cognitive" items, each
a short cue dialogue and a later trigger message, each stitched into one of LoCoMo's ten
conversations (`stitch`: seeded, dated); the reply to the trigger is judged on whether it
uses the cue (`judge`). There is no gold answer: the cue is the question's reference and
its turns its evidence.

The unified official file also carries LoCoMo's five categories: those are LoCoMo's own
questions, run with `--benchmark locomo`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from locoscore.benchmarks.base import Benchmark, KnownFile, QuestionType
from locoscore.benchmarks.locomo_plus.data import (
    PLUS_FILE,
    PLUS_SHA256,
    PLUS_URL,
    RELATIONS,
    PlusData,
    load_plus,
)
from locoscore.data.conversation import Conversation, Question
from locoscore.results.board_row import BoardRow

KNOWN = KnownFile("locomo-plus-059f4e3", PLUS_FILE, PLUS_SHA256, size=305_737, url=PLUS_URL)
TYPE_IDS = {key: i for i, key in enumerate(RELATIONS, 1)}

ANSWER_PROMPT = """\
You are taking part in a long-running conversation between two people, as the one who \
replies next. Below are the parts of that conversation a memory system retrieved for the \
new message, best match first; each is labelled with the date of its session.

Today's date: {question_date}

Retrieved parts of the conversation:
{context}

The new message:
{question}

Reply to the message as the other person in the conversation would, in two to four \
sentences.

Reply:"""


class LoCoMoPlus(Benchmark):
    name = "locomo-plus"
    description = "LoCoMo-Plus (Li et al., 2026): cue/trigger items stitched into LoCoMo"
    types = tuple(QuestionType(i, key, key) for key, i in TYPE_IDS.items())
    known_files = (KNOWN,)
    fetch_names: Mapping[str, KnownFile] = MappingProxyType({"locomo-plus": KNOWN})
    judge_protocols = ("rubric",)  # three levels on the rubric scale: 100, 50, 0
    sample_stratum = "relation"
    answer_prompt_name = "locoscore-locomo-plus-answer-v1"
    # a reply of two to four sentences; the judge reads whether it uses the cue
    answer_max_tokens = 256

    def fetch(self, name: str, url: str | None, dest: Path | None) -> Path:
        from locoscore.data.user_cache import download_verified, user_cache_file

        return download_verified(
            url or PLUS_URL,
            PLUS_SHA256,
            dest or user_cache_file(PLUS_FILE),
            manual_option="--dataset FILE",
        )

    def load(self, path: str | Path | None) -> PlusData:
        return load_plus(path)

    def signature_part(self, data: PlusData) -> str:
        from locoscore.benchmarks.locomo_plus.stitch import SEED, STITCH_VERSION

        return (
            f"{super().signature_part(data)}+locomo10@{data.locomo.sha256[:12]}"
            f"|{STITCH_VERSION}-seed{SEED}"
        )

    def describe_data(self, data: PlusData) -> dict[str, Any]:
        from locoscore.benchmarks.locomo_plus.stitch import SEED, STITCH_VERSION

        return {
            **super().describe_data(data),
            "base": {"path": str(data.locomo.path), "sha256": data.locomo.sha256},
            "stitching": f"{STITCH_VERSION}, seed {SEED}",
            "short_gap": sum(i.gap.short_reason is not None for i in data.items),
        }

    def type_counts(self, data: PlusData) -> dict[int, int]:
        counts = dict.fromkeys(self.type_order, 0)
        for item in data.items:
            counts[TYPE_IDS[item.relation]] += 1
        return counts

    def conversations(self, data: PlusData) -> list[Conversation]:
        from locoscore.benchmarks.locomo_plus.stitch import stitch

        return [stitch(data, item)[0] for item in data.items]

    def questions(
        self,
        data: PlusData,
        conversations: Sequence[Conversation],
        *,
        include_excluded: bool = True,
    ) -> list[Question]:
        from locoscore.benchmarks.locomo_plus.stitch import item_id, stitch

        wanted = {c.conversation_id for c in conversations}
        return [stitch(data, i)[1] for i in data.items if item_id(i) in wanted]

    def default_answer_prompt_text(self) -> str:
        return ANSWER_PROMPT

    async def judge(
        self, data: PlusData, answers: Path, settings: Any, out: Path, **options: Any
    ) -> tuple[Any, dict[str, Any] | None]:
        from locoscore.benchmarks.locomo_plus.judge import add_strict, judge_settings
        from locoscore.generic.judging import JudgeTask, judge_answers
        from locoscore.generic.parts import JudgeRules

        questions = self.questions(data, self.conversations(data))
        task = JudgeTask(
            self.name,
            self.summary_fields(),
            JudgeRules(task="unused: the settings carry LoCoMo-Plus's own prompt"),
            questions,
            {t.id: t.key for t in self.types},
            dict(self.type_names),
            self.describe_data(data),
            self.draw_sample,
        )
        result, section = await judge_answers(
            task, answers, judge_settings(settings, TYPE_IDS), out, **options
        )
        if section is not None:
            add_strict(out, section, questions)
        return result, section

    def judge_lines(self, section: dict[str, Any], out: Path) -> list[str]:
        from locoscore.benchmarks.locomo_plus.judge import strict_lines
        from locoscore.generic.judging import judge_lines

        lines = judge_lines(section, out)
        return [*lines[:-1], *strict_lines(section), lines[-1]]

    def report(self, directory: Path) -> list[Path]:
        from locoscore.benchmarks.locomo_plus.report import write_report
        from locoscore.claim.refresh import write_claim

        write_claim(directory, self)  # the report's first box
        return write_report(directory, self.description)

    def board_row(self, directory: Path) -> BoardRow:
        from locoscore.benchmarks.locomo_plus.report import board_row

        return board_row(directory)


LOCOMO_PLUS = LoCoMoPlus()
