"""Each LoCoMo-Plus item as its own dated conversation (locoscore's profile): a LoCoMo
conversation with the cue added as a session of its own, dated by the item's time gap
before the trigger.

Placement follows the official unified input, so a locoscore number and a paper's are
about the same conversations (nothing is drawn):

1. conversation: item i goes into LoCoMo conversation `i % 10` (the file's order);
2. speakers: the item's A is the conversation's `speaker_a`, B its `speaker_b`; the trigger
   is A's;
3. the trigger is asked 7 days after the last session's date and time (the official offset);
4. the cue session is dated the gap's days before the trigger (locoscore's reading of the
   gap, `data.parse_gap`: "a few weeks" is 21 days, where the official code reads 0), at
   the same time of day, and placed after every session dated at or before it;
5. sessions are renumbered 1..n in order and turns `D<session>:<turn>`, so no id marks the
   cue; the conversation and question id is `lp-<index>`.

`short_gap` is computed, not guessed from the gap's words: the cue session is adjacent to
the trigger (it is the conversation's last session, so nothing stands between them).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from locoscore.benchmarks.locomo.data.conversations import conversation_from_sample
from locoscore.benchmarks.locomo_plus.data import RELATIONS, PlusData, PlusItem
from locoscore.data.conversation import Conversation, Question, SessionInput, TurnInput

STITCH_VERSION = "stitch-v2"
TRIGGER_OFFSET = timedelta(days=7)
_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip


def locomo_date(moment: datetime) -> str:
    """A date as LoCoMo writes one ("1:56 pm on 8 May, 2023"), without the locale."""
    hour = moment.hour % 12 or 12
    half = "am" if moment.hour < 12 else "pm"
    month = _MONTHS[moment.month - 1]
    return f"{hour}:{moment.minute:02d} {half} on {moment.day} {month}, {moment.year}"


def item_id(item: PlusItem) -> str:
    return f"lp-{item.index:03d}"


def base_conversation(data: PlusData, item: PlusItem) -> Conversation:
    """The LoCoMo conversation item i is stitched into: `i % 10`, as the official input."""
    samples = data.locomo.samples
    sample = samples[item.index % len(samples)]
    base = data.bases.get(sample.sample_id)
    if base is None:
        base = data.bases[sample.sample_id] = conversation_from_sample(
            sample, str(data.locomo.path)
        )
    return base


def trigger_time(base: Conversation) -> datetime:
    """The official trigger time: 7 days after the last session."""
    last = base.last_date_iso
    if last is None:  # the LoCoMo reader refuses undated sessions first; a guard
        raise ValueError(f"{base.conversation_id} has no dated session")
    return datetime.fromisoformat(last) + TRIGGER_OFFSET


def cue_position(base: Conversation, cue_at: datetime) -> int:
    """Where the cue session goes: after every session dated at or before it (undated
    ones keep their place)."""
    position = 0
    for i, session in enumerate(base.sessions):
        if session.date_iso is not None and datetime.fromisoformat(session.date_iso) <= cue_at:
            position = i + 1
    return position


def placed(
    base: Conversation, cue: SessionInput, position: int, ident: str, *, bare: bool = False
) -> tuple[Conversation, tuple[str, ...]]:
    """`base` with the cue session inserted at `position`, sessions renumbered 1..n and turns
    `D<session>:<turn>` (so no id marks the cue): the conversation `ident` and the cue's turn
    ids (the question's evidence). `bare`: as the official input shows it, with no dates, no
    captions and each text stripped."""
    ordered = [*base.sessions[:position], cue, *base.sessions[position:]]
    sessions = []
    evidence: tuple[str, ...] = ()
    for number, session in enumerate(ordered, 1):
        turns = tuple(
            TurnInput(t.speaker, f"D{number}:{j}", t.text.strip())
            if bare
            else TurnInput(t.speaker, f"D{number}:{j}", t.text, t.caption)
            for j, t in enumerate(session.turns, 1)
        )
        if session is cue:
            evidence = tuple(t.dia_id for t in turns)
        dates = (None, None) if bare else (session.date_raw, session.date_iso)
        sessions.append(SessionInput(ident, number, *dates, turns, base.speakers))
    return Conversation(ident, base.speakers, tuple(sessions)), evidence


def item_record_ids(
    item: PlusItem, gap_days: int, position: int, base: Conversation
) -> dict[str, Any]:
    """What a stitched question records of its item and placement."""
    return {
        "item": item.index,
        "relation_type": item.relation,
        "time_gap": item.gap.text,
        "gap_days": gap_days,
        # the cue is the last session: adjacent to the trigger
        "short_gap": position == len(base.sessions),
        "locomo_conversation": base.conversation_id,
    }


# (names {"A": speaker_a, "B": speaker_b}, the cue's time, the item id) -> the cue session
CueSession = Callable[[dict[str, str], datetime, str], SessionInput]


def stitch_with(
    data: PlusData,
    item: PlusItem,
    cache: dict[int, tuple[Conversation, Question]],
    *,
    gap_days: int,
    cue_session: CueSession,
    said: Callable[[dict[str, str]], tuple[str, str]],
    bare: bool = False,
) -> tuple[Conversation, Question]:
    """The item as a profile stitches it (cached in `cache`): the cue session placed
    `gap_days` before the trigger (`placed`, `bare` as it says), and the question whose
    text and gold are `said(names)`."""
    if item.index in cache:
        return cache[item.index]
    base = base_conversation(data, item)
    names = {"A": base.speakers[0], "B": base.speakers[1]}
    trigger_at = trigger_time(base)
    cue_at = trigger_at - timedelta(days=gap_days)
    ident = item_id(item)
    position = cue_position(base, cue_at)
    cue = cue_session(names, cue_at, ident)
    conversation, evidence = placed(base, cue, position, ident, bare=bare)
    text, gold = said(names)
    question = Question(
        question_id=ident,
        conversation_id=ident,
        text=text,
        category=RELATIONS.index(item.relation) + 1,  # the benchmark's type ids
        gold=gold,
        evidence=evidence,
        date_iso=trigger_at.isoformat(timespec="minutes"),
        record_ids=item_record_ids(item, gap_days, position, base),
        date_raw=locomo_date(trigger_at),
    )
    cache[item.index] = (conversation, question)
    return conversation, question


def stitch(data: PlusData, item: PlusItem) -> tuple[Conversation, Question]:
    """The item's conversation and its question (cached on `data`)."""

    def cue_session(names: dict[str, str], cue_at: datetime, ident: str) -> SessionInput:
        turns = tuple(TurnInput(names[line.role], "", line.text) for line in item.cue)
        dated = (locomo_date(cue_at), cue_at.isoformat(timespec="minutes"))
        return SessionInput(ident, 0, *dated, turns)  # `placed` gives it the speakers

    def said(names: dict[str, str]) -> tuple[str, str]:
        gold = "\n".join(f"{names[line.role]}: {line.text}" for line in item.cue)
        return f"{names['A']}: {item.trigger.text}", gold

    return stitch_with(
        data, item, data.stitched, gap_days=item.gap.days, cue_session=cue_session, said=said
    )
