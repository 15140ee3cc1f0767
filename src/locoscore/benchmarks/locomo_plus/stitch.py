"""Each LoCoMo-Plus item as its own dated conversation: a LoCoMo conversation with the cue
added as a session of its own, dated by the item's time gap before the trigger.

The draws are seeded and do not depend on the Python version: each is the first 8 bytes
(big-endian) of sha256("locomo-plus/stitch-v1/seed=<seed>/item=<index>/<name>"), never
`hash()`, set order or `random`'s algorithms. For item i:

1. conversation: draw "conversation" modulo the number of LoCoMo conversations (10);
2. speakers: draw "speakers" modulo 2; 0 gives the item's speaker A the conversation's
   first speaker, 1 its second (B is the other);
3. the trigger is asked 7 days after the last session's date and time (the official offset);
4. the cue session is dated the gap's days before the trigger, at the same time of day, and
   placed after every session dated at or before it (so a one-week cue follows the last
   session: those items are `short_gap`, reported apart);
5. sessions are renumbered 1..n in order and turns `D<session>:<turn>`, so no id marks the
   cue; the conversation and question id is `lp-<index>` (the file's order, nothing else).
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

from locoscore.benchmarks.locomo.data.conversations import conversation_from_sample
from locoscore.benchmarks.locomo_plus.data import RELATIONS, PlusData, PlusItem
from locoscore.data.conversation import Conversation, Question, SessionInput, TurnInput

STITCH_VERSION = "stitch-v1"
SEED = 0
TRIGGER_OFFSET = timedelta(days=7)
_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip


def draw(index: int, name: str, seed: int = SEED) -> int:
    """One documented draw: a 64-bit integer from sha256, stable everywhere."""
    key = f"locomo-plus/{STITCH_VERSION}/seed={seed}/item={index}/{name}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big")


def locomo_date(moment: datetime) -> str:
    """A date as LoCoMo writes one ("1:56 pm on 8 May, 2023"), without the locale."""
    hour = moment.hour % 12 or 12
    half = "am" if moment.hour < 12 else "pm"
    month = _MONTHS[moment.month - 1]
    return f"{hour}:{moment.minute:02d} {half} on {moment.day} {month}, {moment.year}"


def item_id(item: PlusItem) -> str:
    return f"lp-{item.index:03d}"


def stitch(data: PlusData, item: PlusItem) -> tuple[Conversation, Question]:
    """The item's conversation and its question (cached on `data`)."""
    if item.index in data.stitched:
        return data.stitched[item.index]
    samples = data.locomo.samples
    sample = samples[draw(item.index, "conversation") % len(samples)]
    base = data.bases.get(sample.sample_id)
    if base is None:
        base = data.bases[sample.sample_id] = conversation_from_sample(
            sample, str(data.locomo.path)
        )
    names = base.speakers if draw(item.index, "speakers") % 2 == 0 else base.speakers[::-1]
    speaker = {"A": names[0], "B": names[1]}
    last = base.last_date_iso
    if last is None:  # the LoCoMo reader refuses undated sessions first; a guard
        raise ValueError(f"{sample.sample_id} has no dated session")
    trigger_at = datetime.fromisoformat(last) + TRIGGER_OFFSET
    cue_at = trigger_at - timedelta(days=item.gap.days)
    ident = item_id(item)
    cue_turns = tuple(TurnInput(speaker[line.role], "", line.text) for line in item.cue)
    cue = SessionInput(
        ident,
        0,
        locomo_date(cue_at),
        cue_at.isoformat(timespec="minutes"),
        cue_turns,
        base.speakers,
    )
    # after every session dated at or before the cue (undated ones keep their place)
    position = 0
    for i, session in enumerate(base.sessions):
        if session.date_iso is not None and datetime.fromisoformat(session.date_iso) <= cue_at:
            position = i + 1
    ordered = [*base.sessions[:position], cue, *base.sessions[position:]]
    sessions = []
    evidence: list[str] = []
    for number, session in enumerate(ordered, 1):
        turns = tuple(
            TurnInput(t.speaker, f"D{number}:{j}", t.text, t.caption)
            for j, t in enumerate(session.turns, 1)
        )
        if session is cue:
            evidence = [t.dia_id for t in turns]
        sessions.append(
            SessionInput(ident, number, session.date_raw, session.date_iso, turns, base.speakers)
        )
    conversation = Conversation(ident, base.speakers, tuple(sessions))
    question = Question(
        question_id=ident,
        conversation_id=ident,
        text=f"{speaker['A']}: {item.trigger.text}",
        category=RELATIONS.index(item.relation) + 1,  # the benchmark's type ids
        gold="\n".join(f"{speaker[line.role]}: {line.text}" for line in item.cue),
        evidence=tuple(evidence),
        date_iso=trigger_at.isoformat(timespec="minutes"),
        record_ids={
            "item": item.index,
            "relation_type": item.relation,
            "time_gap": item.gap.text,
            "gap_days": item.gap.days,
            "short_gap": item.gap.short_reason is not None,
            "locomo_conversation": sample.sample_id,
        },
        date_raw=locomo_date(trigger_at),
    )
    data.stitched[item.index] = (conversation, question)
    return conversation, question
