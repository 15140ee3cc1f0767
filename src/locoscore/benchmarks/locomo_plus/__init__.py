"""LoCoMo-Plus (arXiv 2602.10715) behind the benchmark interface: 401 "cognitive" items, each
a short cue dialogue and a later trigger message, each stitched into one of LoCoMo's ten
conversations (`stitch`: placed as the official input, dated); the reply to the trigger is
judged on whether it uses the cue (`judge`). There is no gold answer: the cue is the
question's reference and its turns its evidence.

Two profiles: locoscore's (the default) and the official evaluation (`run --protocol
official`, `judge --protocol official`; `official`, `official_judge`), whose prompt texts
are read from the official repository's files (`official_prompts`), never shipped.

The unified official file also carries LoCoMo's five categories: those are LoCoMo's own
questions, run with `--benchmark locomo`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from locoscore.benchmarks.base import Benchmark, KnownFile, QuestionType
from locoscore.benchmarks.locomo_plus.data import (
    PLUS_FILE,
    PLUS_SHA256,
    PLUS_URL,
    RELATIONS,
    PlusData,
    PlusItem,
    load_plus,
)
from locoscore.data.conversation import Conversation, Question
from locoscore.results.board_row import BoardRow

if TYPE_CHECKING:
    from locoscore.benchmarks.answer_prompt import AnswerPrompt
    from locoscore.judge.prompts import PromptTemplate

KNOWN = KnownFile("locomo-plus-059f4e3", PLUS_FILE, PLUS_SHA256, size=305_737, url=PLUS_URL)
# The official prompt files (`official_prompts`): fetched beside the data, never shipped.
OFFICIAL_FILES = KnownFile(
    "locomo-plus-official",
    "locomo-plus-059f4e3/",
    "pinned per file",
    note="the official prompt files (utils.py, prompt.py at 059f4e3, each pinned by "
    "sha256) that --protocol official reads",
)
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
    fetch_names: Mapping[str, KnownFile] = MappingProxyType(
        {"locomo-plus": KNOWN, "locomo-plus-official": OFFICIAL_FILES}
    )
    # rubric: three levels on the rubric scale (100, 50, 0); official: the official binary
    # judge (`official_judge`)
    judge_protocols = ("rubric", "official")
    run_protocols = ("official",)
    sample_stratum = "relation"
    answer_prompt_name = "locoscore-locomo-plus-answer-v1"
    # a reply of two to four sentences; the judge reads whether it uses the cue
    answer_max_tokens = 256

    def for_protocol(self, protocol: str | None) -> Benchmark:
        if protocol == "official":
            return OFFICIAL
        return super().for_protocol(protocol)

    def fetch(self, name: str, url: str | None, dest: Path | None) -> Path:
        from locoscore.data.user_cache import download_verified, user_cache_file

        if name == "locomo-plus-official":
            from locoscore.benchmarks.locomo_plus.official_prompts import fetch_prompt_files

            return fetch_prompt_files(url, dest)
        return download_verified(
            url or PLUS_URL,
            PLUS_SHA256,
            dest or user_cache_file(PLUS_FILE),
            manual_option="--dataset FILE",
        )

    def load(self, path: str | Path | None) -> PlusData:
        return load_plus(path)

    def signature_part(self, data: PlusData) -> str:
        from locoscore.benchmarks.locomo_plus.stitch import STITCH_VERSION

        return f"{super().signature_part(data)}+locomo10@{data.locomo.sha256[:12]}|{STITCH_VERSION}"

    def describe_data(self, data: PlusData) -> dict[str, Any]:
        from locoscore.benchmarks.locomo_plus.stitch import STITCH_VERSION

        questions = self.all_questions(data)
        return {
            **super().describe_data(data),
            "base": {"path": str(data.locomo.path), "sha256": data.locomo.sha256},
            "stitching": STITCH_VERSION,
            "short_gap": sum(bool(q.record_ids.get("short_gap")) for q in questions),
        }

    def type_counts(self, data: PlusData) -> dict[int, int]:
        counts = dict.fromkeys(self.type_order, 0)
        for item in data.items:
            counts[TYPE_IDS[item.relation]] += 1
        return counts

    def stitched(self, data: PlusData, item: PlusItem) -> tuple[Conversation, Question]:
        """The item's conversation and question, as this profile stitches them."""
        from locoscore.benchmarks.locomo_plus.stitch import stitch

        return stitch(data, item)

    def conversations(self, data: PlusData) -> list[Conversation]:
        return [self.stitched(data, item)[0] for item in data.items]

    def all_questions(self, data: PlusData) -> list[Question]:
        return [self.stitched(data, item)[1] for item in data.items]

    def default_answer_prompt_text(self) -> str:
        return ANSWER_PROMPT

    def official_judge_template(self, protocol: str) -> PromptTemplate | None:
        """The official judge, through the repository's own prompt file: a marker here, the
        template itself once the judge pass has read the data (`official_judge`)."""
        from locoscore.benchmarks.locomo_plus.official_judge import marker

        return marker(protocol)

    async def judge(
        self, data: PlusData, answers: Path, settings: Any, out: Path, **options: Any
    ) -> tuple[Any, dict[str, Any] | None]:
        from locoscore.benchmarks.locomo_plus.judge import add_strict, judge_settings
        from locoscore.benchmarks.locomo_plus.official import official_stitch, prompts_of
        from locoscore.benchmarks.locomo_plus.official_judge import (
            add_official,
            is_official,
            official_settings,
        )
        from locoscore.generic.judging import JudgeTask, judge_answers
        from locoscore.generic.parts import JudgeRules

        whole = settings.protocol == "official"  # else a panel's official variant, or ours
        official = whole or is_official(settings.template)
        if official:
            settings = official_settings(settings, prompts_of(data), whole=whole)
            questions = [official_stitch(data, item)[1] for item in data.items]
        else:
            settings = judge_settings(settings, TYPE_IDS)
            questions = self.all_questions(data)
        task = JudgeTask(
            self.name,
            self.summary_fields(),
            JudgeRules(task="unused: the settings carry LoCoMo-Plus's own prompt"),
            questions,
            {t.id: t.key for t in self.types},
            dict(self.type_names),
            (OFFICIAL if official else self).describe_data(data),
            self.draw_sample,
        )
        result, section = await judge_answers(task, answers, settings, out, **options)
        if section is not None:
            if official:
                add_official(out, section, questions)
            add_strict(out, section, questions)
        return result, section

    def judge_lines(self, section: dict[str, Any], out: Path) -> list[str]:
        from locoscore.benchmarks.locomo_plus.judge import strict_lines
        from locoscore.benchmarks.locomo_plus.official_judge import aggregation_lines
        from locoscore.generic.judging import judge_lines

        lines = judge_lines(section, out)
        return [*lines[:-1], *aggregation_lines(section), *strict_lines(section), lines[-1]]

    def report(self, directory: Path) -> list[Path]:
        from locoscore.benchmarks.locomo_plus.report import write_report
        from locoscore.claim.refresh import write_claim

        write_claim(directory, self)  # the report's first box
        return write_report(directory, self.description)

    def board_row(self, directory: Path) -> BoardRow:
        from locoscore.benchmarks.locomo_plus.report import board_row

        return board_row(directory)


class OfficialLoCoMoPlus(LoCoMoPlus):
    """`run --protocol official`: the items placed, stitched, shown and answered as the
    official unified input does (`official`), its prompt read from the official files."""

    answer_max_tokens = 1024
    answer_temperature = 0.3

    def for_protocol(self, protocol: str | None) -> Benchmark:
        return LOCOMO_PLUS.for_protocol(protocol)

    def load(self, path: str | Path | None) -> PlusData:
        from locoscore.benchmarks.locomo_plus.official import prompts_of

        data = load_plus(path)
        prompts_of(data)  # absent: exit 2 with the fetch command, before any work
        return data

    def signature_part(self, data: PlusData) -> str:
        from locoscore.benchmarks.locomo_plus.official import STITCH_VERSION, prompts_of

        return (
            f"{Benchmark.signature_part(self, data)}+locomo10@{data.locomo.sha256[:12]}"
            f"|{STITCH_VERSION}|protocol:official@{prompts_of(data).version}"
        )

    def describe_data(self, data: PlusData) -> dict[str, Any]:
        from locoscore.benchmarks.locomo_plus.official import STITCH_VERSION, prompts_of

        prompts = prompts_of(data)
        return {
            **super().describe_data(data),
            "stitching": STITCH_VERSION,
            "protocol": "official",
            "official_prompts": {
                "source": prompts.source,
                "root": str(prompts.root),
                "sha256": prompts.sha256,
            },
        }

    def stitched(self, data: PlusData, item: PlusItem) -> tuple[Conversation, Question]:
        from locoscore.benchmarks.locomo_plus.official import official_stitch

        return official_stitch(data, item)

    def answer_prompt(self, data: PlusData) -> AnswerPrompt:
        from locoscore.benchmarks.locomo_plus.official import answer_prompt, prompts_of

        return answer_prompt(prompts_of(data))


LOCOMO_PLUS = LoCoMoPlus()
OFFICIAL = OfficialLoCoMoPlus()
