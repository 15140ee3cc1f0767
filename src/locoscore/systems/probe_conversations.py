"""The probe's synthetic conversation pair: invented people, invented words, distinct dates.

Two short conversations (A and B), three sessions each on distinct days (around midday, so
a system that shifts them to UTC keeps the day), one image turn each whose caption holds a
word found nowhere else. Every checked fact is a made-up word (the answer), asked about by
a question that never contains it, so a system that answers itself cannot pass by echoing
the question. Deterministic and free of benchmark data.

The conversation ids start with `locoscore-probe-` so a probe can never touch a real run's
conversations; the probe resets them when it is done.
"""

from __future__ import annotations

from dataclasses import dataclass

from locoscore.data.conversation import Conversation, SessionInput, TurnInput
from locoscore.data.dates import parse_spoken_date

PROBE_PREFIX = "locoscore-probe-"
CONVERSATION_A = f"{PROBE_PREFIX}a"
CONVERSATION_B = f"{PROBE_PREFIX}b"
UNKNOWN_CONVERSATION = f"{PROBE_PREFIX}never-added"


@dataclass(frozen=True)
class ProbeFact:
    """A made-up `word` said in one session; `question` asks for it without containing it,
    `date_question` asks when it was said (answerable only from the session date)."""

    conversation_id: str
    session_index: int
    dia_id: str
    word: str
    question: str
    date_question: str


@dataclass(frozen=True)
class ProbeImage:
    """An image turn whose caption alone holds `word`; `question` asks what the photo showed."""

    conversation_id: str
    dia_id: str
    word: str
    caption: str
    question: str


@dataclass(frozen=True)
class ProbeConversation:
    conversation: Conversation
    facts: tuple[ProbeFact, ...]
    image: ProbeImage

    @property
    def conversation_id(self) -> str:
        return self.conversation.conversation_id

    @property
    def dia_ids(self) -> frozenset[str]:
        return frozenset(t.dia_id for s in self.conversation.sessions for t in s.turns)

    @property
    def secret_words(self) -> tuple[str, ...]:
        """Words that only this conversation holds: finding one elsewhere is a leak."""
        return (*(f.word for f in self.facts), self.image.word)

    def session(self, index: int) -> SessionInput:
        return next(s for s in self.conversation.sessions if s.index == index)


# (speaker, text, caption or None) per turn, per session, with the session's date.
_Turn = tuple[str, str, str | None]


def _session(conversation_id: str, index: int, date_raw: str, turns: list[_Turn]) -> SessionInput:
    speakers = tuple(dict.fromkeys(speaker for speaker, _, _ in turns))
    return SessionInput(
        conversation_id=conversation_id,
        index=index,
        date_raw=date_raw,
        date_iso=parse_spoken_date(date_raw),
        turns=tuple(
            TurnInput(speaker, f"D{index}:{n}", text, caption)
            for n, (speaker, text, caption) in enumerate(turns, start=1)
        ),
        speakers=speakers,
    )


def _conversation_a() -> ProbeConversation:
    cid = CONVERSATION_A
    sessions = (
        _session(
            cid,
            1,
            "1:05 pm on 14 March, 2021",
            [
                (
                    "Marisol",
                    "Guess what, I adopted a ferret last weekend and named him Quillon.",
                    None,
                ),
                ("Tobiah", "That is lovely news! How is the little one settling in?", None),
                ("Marisol", "He sleeps all day and hides my socks at night.", None),
                ("Tobiah", "Sounds like he already runs the house.", None),
            ],
        ),
        _session(
            cid,
            2,
            "11:20 am on 2 August, 2021",
            [
                ("Tobiah", "I spent Saturday morning wandering the flea market downtown.", None),
                (
                    "Tobiah",
                    "Here is a photo of what I bought there.",
                    "a brass astrolabe on a desk",
                ),
                ("Marisol", "Beautiful! Will you keep it in your study?", None),
                ("Tobiah", "Yes. Also, my sister's band is now called Orvenna.", None),
            ],
        ),
        _session(
            cid,
            3,
            "12:40 pm on 19 January, 2022",
            [
                ("Marisol", "Yesterday I hiked the Zanderfell trail up in the hills.", None),
                ("Tobiah", "In this cold? You are braver than me.", None),
                ("Marisol", "The view from the ridge made every step worth it.", None),
            ],
        ),
    )
    facts = (
        ProbeFact(
            cid,
            1,
            "D1:1",
            "Quillon",
            "What name did Marisol give the ferret she adopted?",
            "In which month and year did Marisol adopt her ferret?",
        ),
        ProbeFact(
            cid,
            2,
            "D2:4",
            "Orvenna",
            "What is the name of the band Tobiah's sister plays in?",
            "In which month and year did Tobiah say what his sister's band is called?",
        ),
        ProbeFact(
            cid,
            3,
            "D3:1",
            "Zanderfell",
            "Which trail did Marisol hike in the hills?",
            "In which month and year did Marisol hike the trail in the hills?",
        ),
    )
    image = ProbeImage(
        cid,
        "D2:2",
        "astrolabe",
        "a brass astrolabe on a desk",
        "What object was in the photo Tobiah shared of his flea market purchase?",
    )
    return ProbeConversation(Conversation(cid, ("Marisol", "Tobiah"), sessions), facts, image)


def _conversation_b() -> ProbeConversation:
    cid = CONVERSATION_B
    sessions = (
        _session(
            cid,
            1,
            "11:30 am on 5 June, 2020",
            [
                ("Dervla", "I finished restoring the old sailboat, she is called Brimwater.", None),
                ("Ansel", "After two years of sanding? Congratulations!", None),
                ("Dervla", "Her first trip on the lake is next week.", None),
            ],
        ),
        _session(
            cid,
            2,
            "1:15 pm on 23 October, 2020",
            [
                ("Ansel", "We took in a stray cat and the kids named her Tessivane.", None),
                ("Ansel", "Here she is next to my grandmother's teapot.", "a painted samovar"),
                ("Dervla", "What a pair! Is she friendly with the dog?", None),
            ],
        ),
        _session(
            cid,
            3,
            "11:45 am on 7 April, 2021",
            [
                ("Dervla", "My bakery finally has a name: Mordecrumb.", None),
                ("Ansel", "I will be your first customer on opening day.", None),
                ("Dervla", "Then the first loaf is on the house.", None),
            ],
        ),
    )
    facts = (
        ProbeFact(
            cid,
            1,
            "D1:1",
            "Brimwater",
            "What is the name of the sailboat Dervla restored?",
            "In which month and year did Dervla finish restoring her sailboat?",
        ),
        ProbeFact(
            cid,
            2,
            "D2:1",
            "Tessivane",
            "What did Ansel's kids name the stray cat?",
            "In which month and year did Ansel take in a stray cat?",
        ),
        ProbeFact(
            cid,
            3,
            "D3:1",
            "Mordecrumb",
            "What is the name of Dervla's bakery?",
            "In which month and year did Dervla name her bakery?",
        ),
    )
    image = ProbeImage(
        cid,
        "D2:2",
        "samovar",
        "a painted samovar",
        "What object was next to the cat in the photo Ansel shared?",
    )
    return ProbeConversation(Conversation(cid, ("Dervla", "Ansel"), sessions), facts, image)


def probe_conversations() -> tuple[ProbeConversation, ProbeConversation]:
    """Conversations A and B (always the same)."""
    return _conversation_a(), _conversation_b()


def searchable_fact() -> tuple[SessionInput, ProbeFact]:
    """A fourth session of A, added late, to time how soon a new fact becomes searchable."""
    session = _session(
        CONVERSATION_A,
        4,
        "12:10 pm on 2 May, 2022",
        [("Marisol", "I bought a red kayak and painted the name Fennimaru on its side.", None)],
    )
    fact = ProbeFact(
        CONVERSATION_A,
        4,
        "D4:1",
        "Fennimaru",
        "What name did Marisol paint on her kayak?",
        "In which month and year did Marisol buy her kayak?",
    )
    return session, fact
