"""LoCoMo-Plus's official profile (`--protocol official`): each item stitched and asked as
the official unified input does (xjtuleeyf/Locomo-Plus `data/unified_input.py`,
`data/build_conv.py`, `evaluation_framework/task_eval/`), re-implemented from its behaviour.

- placement: item i in LoCoMo conversation `i % 10`; the item's A is `speaker_a`, any other
  line's speaker `speaker_b`;
- the cue and trigger are read as the official reader reads them: lines split at newlines
  only, a line counted when it starts with "A:" or "B:" (so the 31 cues holding a literal
  backslash-n keep B's words inside A's turn), each line's text stripped;
- the gap: only a count (digits, one..twelve, "a"/"an") right before week(s), month(s) or
  year(s) becomes days (7, 30, 365 each); anything else is 0 days (`official_gap_days`);
- the trigger is 7 days after the last session; the cue session goes after every session
  dated at or before the trigger minus the gap (a gap of 0 or of one week puts it last);
- nothing is dated and no image caption is shown: the official model input holds neither;
- the question is the official last line, `<speaker_a> said, "<trigger>"`, and its reference
  the official judge evidence, `<name>：<text>` per cue line (a full-width colon);
- the answer prompt is the official one, built from the repository's own texts
  (`official_prompts`): the conversation prefix with the names "A" and "B", the Cognitive
  instruction, the conversation, then the trigger; answered at temperature 0.3 with 1,024
  tokens.
"""

from __future__ import annotations

import re
from datetime import datetime

from locoscore.benchmarks.answer_prompt import AnswerPrompt
from locoscore.benchmarks.locomo_plus.data import PlusData, PlusItem
from locoscore.benchmarks.locomo_plus.official_prompts import OfficialPrompts, official_prompts
from locoscore.benchmarks.locomo_plus.stitch import stitch_with
from locoscore.data.conversation import Conversation, Question, SessionInput, TurnInput

STITCH_VERSION = "official-unified-input"
ANSWER_TEMPERATURE = 0.3
ANSWER_MAX_TOKENS = 1024

_COUNTS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a": 1, "an": 1,
}  # fmt: skip
_UNITS = {"week": 7, "month": 30, "year": 365}
_COUNTED_UNIT = re.compile(r"\b(\d+|" + "|".join(_COUNTS) + r")\b\s*(week|month|year)s?\b")


def official_gap_days(text: str) -> int:
    """The gap in days as the official stitching reads it: the first count right before a
    week, month or year; 0 for anything else ("several months later", "ten days later")."""
    match = _COUNTED_UNIT.search(text.strip().lower())
    if match is None:
        return 0
    amount, unit = match.groups()
    count = int(amount) if amount.isdigit() else _COUNTS[amount]
    return count * _UNITS[unit]


def official_lines(text: str) -> list[tuple[str, str]]:
    """(role, text) per line as the official reader splits a dialogue: at newlines only;
    a line that does not start with "A:" or "B:" is dropped."""
    lines = []
    for raw in text.split("\n"):
        line = raw.strip()
        if line[:2] in ("A:", "B:"):
            lines.append((line[0], line[2:].strip()))
    return lines


def prompts_of(data: PlusData) -> OfficialPrompts:
    """The official texts for this data (a local copy's, else the fetched ones), read once."""
    if data.official is None:
        data.official = official_prompts(data.repository)
    prompts: OfficialPrompts = data.official
    return prompts


def escaped(text: str) -> str:
    """Official text as a locoscore template holds it: its braces literal."""
    return text.replace("{", "{{").replace("}", "}}")


def answer_prompt(prompts: OfficialPrompts) -> AnswerPrompt:
    """The official model input of a Cognitive item: prefix (names "A" and "B", as the
    official code passes them), instruction, then the conversation with the trigger as its
    last line."""
    head = prompts.conv_start.format("A", "B") + prompts.instruction
    return AnswerPrompt(
        escaped(head) + "{context}\n{question}",
        name=f"official-locomo-plus-cognitive@{prompts.version}",
    )


def official_stitch(data: PlusData, item: PlusItem) -> tuple[Conversation, Question]:
    """The item's conversation and question in the official profile (cached on `data`)."""
    cue_lines = official_lines(item.cue_raw)

    def cue_session(names: dict[str, str], cue_at: datetime, ident: str) -> SessionInput:
        turns = tuple(TurnInput(names[r], "", t) for r, t in cue_lines)
        return SessionInput(ident, 0, None, None, turns)

    def said(names: dict[str, str]) -> tuple[str, str]:
        trigger = " ".join(t for _, t in official_lines(item.trigger_raw))
        gold = "\n".join(f"{names[r]}：{t}" for r, t in cue_lines if t)
        return f'{names["A"]} said, "{trigger}"', gold

    return stitch_with(
        data,
        item,
        data.official_stitched,
        gap_days=official_gap_days(item.gap.text),
        cue_session=cue_session,
        said=said,
        bare=True,
    )
