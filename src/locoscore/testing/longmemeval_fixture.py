"""LongMemEval-format files generated in the exact schema, for tests and benches (the real
data cannot be downloaded here, and is not ours to commit).

Ten questions cover the six types, four `_abs` questions, integer answers, the `gpt4_`
prefix, `answer_…` evidence ids beside `sharegpt_…`, `ultrachat_…` and bare-hex fillers,
`has_answer` marks (on every turn of an evidence session, absent on fillers) and the date
format. `variant="s"` gives each question fillers and sorts its haystack by date;
`variant="oracle"` keeps only the evidence sessions, not sorted (as the released oracle).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

DATE_FORMAT = "%Y/%m/%d (%a) %H:%M"


def fmt(when: datetime) -> str:
    return when.strftime(DATE_FORMAT)


# (question_id, type, question, answer, evidence sessions: [(turns, day offset)])
# A turn is (role, content, has_answer).
def _spec() -> list[tuple[str, str, str, Any, list[tuple[list[tuple[str, str, bool]], int]]]]:
    u, a = "user", "assistant"
    return [
        (
            "e47becba",
            "single-session-user",
            "What is the name of my dog?",
            "Biscuit",
            [
                (
                    [
                        (u, "I adopted a beagle and named him Biscuit.", True),
                        (a, "Lovely name!", False),
                    ],
                    3,
                )
            ],
        ),
        (
            "a3f9c2d1_abs",
            "single-session-user",
            "What is the name of my cat?",
            "The user never mentioned a cat; only a dog named Biscuit.",
            [([(u, "My beagle Biscuit loves the park.", False), (a, "Sounds fun.", False)], 5)],
        ),
        (
            "7c2d9e10",
            "single-session-assistant",
            "Which soup did you suggest second when I asked for recipes?",
            "lentil soup",
            [
                (
                    [
                        (u, "Suggest two soups for winter.", False),
                        (a, "Try minestrone, and then a lentil soup.", True),
                    ],
                    8,
                )
            ],
        ),
        (
            "0b8e4f77",
            "single-session-preference",
            "Can you suggest a weekend activity for me?",
            "The user would prefer suggestions involving hiking with their dog, as they mentioned "
            "enjoying mountain trails.",
            [
                (
                    [
                        (u, "I love hiking mountain trails with my dog on weekends.", True),
                        (a, "That sounds wonderful.", False),
                    ],
                    10,
                )
            ],
        ),
        (
            "5d1a6c3e",
            "multi-session",
            "How many museums did I visit this year?",
            3,
            [
                (
                    [
                        (u, "I visited the Louvre and the Orsay last month.", True),
                        (a, "Two great museums!", False),
                    ],
                    2,
                ),
                ([(u, "Today I went to the Prado.", True), (a, "Enjoy Madrid.", False)], 12),
            ],
        ),
        (
            "9f3b2a81_abs",
            "multi-session",
            "How many concerts did I attend this year?",
            "The user mentioned no concerts.",
            [([(u, "I visited the Louvre.", False), (a, "Nice.", False)], 4)],
        ),
        (
            "c81e728d",
            "knowledge-update",
            "Where do I work now?",
            "Acme Robotics",
            [
                ([(u, "I work at Globex as an engineer.", True), (a, "Noted.", False)], 1),
                (
                    [
                        (u, "I just started a new job at Acme Robotics!", True),
                        (a, "Congratulations!", False),
                    ],
                    14,
                ),
            ],
        ),
        (
            "d3d94468_abs",
            "knowledge-update",
            "Where does my sister work now?",
            "The user never said where their sister works.",
            [([(u, "My sister moved to Lisbon.", False), (a, "Exciting.", False)], 6)],
        ),
        (
            "gpt4_1a2b3c4d",
            "temporal-reasoning",
            "How many days passed between my Louvre visit and my Prado visit?",
            10,
            [
                ([(u, "I visited the Louvre today.", True), (a, "Great.", False)], 2),
                ([(u, "Today I went to the Prado.", True), (a, "Enjoy.", False)], 12),
            ],
        ),
        (
            "gpt4_9e8d7c6b_abs",
            "temporal-reasoning",
            "How many days passed between my two dentist appointments?",
            "The user mentioned only one dentist appointment.",
            [
                (
                    [
                        (u, "I had a dentist appointment today.", False),
                        (a, "Hope it went well.", False),
                    ],
                    7,
                )
            ],
        ),
    ]


_FILLER_PREFIXES = ("sharegpt_", "ultrachat_", "")


def _turns(turns: list[tuple[str, str, bool]], evidence: bool) -> list[dict[str, Any]]:
    out = []
    for role, content, mark in turns:
        turn: dict[str, Any] = {"role": role, "content": content}
        if evidence:
            turn["has_answer"] = mark
        out.append(turn)
    return out


def make_records(
    variant: str = "s", *, fillers: int = 3, filler_turns: int = 2, filler_padding: int = 0
) -> list[dict[str, Any]]:
    """The questions as released files hold them (`variant`: "s" or "oracle"); a bench
    makes them large with many fillers padded by `filler_padding` extra words each."""
    start = datetime(2023, 5, 1, 9, 15)
    records = []
    for q, (qid, qtype, question, answer, evidence) in enumerate(_spec()):
        base = qid.removesuffix("_abs").removeprefix("gpt4_")
        sessions: list[tuple[str, datetime, list[dict[str, Any]]]] = []
        for e, (turns, day) in enumerate(evidence):
            sid = f"answer_{base}" + (f"_{e + 1}" if len(evidence) > 1 else "")
            sessions.append(
                (sid, start + timedelta(days=day, hours=q, minutes=7 * e), _turns(turns, True))
            )
        answer_ids = [sid for sid, _, _ in sessions]
        if variant == "s":
            for f in range(fillers):
                prefix = _FILLER_PREFIXES[f % len(_FILLER_PREFIXES)]
                sid = f"{prefix}{q:02x}{f:02x}f00d_{f}"
                filler: list[dict[str, Any]] = [
                    {
                        "role": ("user", "assistant")[t % 2],
                        "content": f"Filler chat {q}.{f}.{t} about the weather."
                        + " é" * filler_padding,
                    }
                    for t in range(filler_turns)
                ]
                sessions.append((sid, start + timedelta(days=4 * f + 1, hours=q + 1), filler))
            sessions.sort(key=lambda s: s[1])
        else:
            sessions.reverse()  # the oracle file does not sort its haystacks
        last = max(when for _, when, _ in sessions)
        records.append(
            {
                "question_id": qid,
                "question_type": qtype,
                "question": question,
                "answer": answer,
                "question_date": fmt(last + timedelta(days=3, hours=2, minutes=30)),
                "haystack_session_ids": [sid for sid, _, _ in sessions],
                "haystack_dates": [fmt(when) for _, when, _ in sessions],
                "haystack_sessions": [turns for _, _, turns in sessions],
                "answer_session_ids": answer_ids,
            }
        )
    return records


def write_fixture(path: Path, variant: str = "s", **kwargs: Any) -> Path:
    path.write_text(json.dumps(make_records(variant, **kwargs), indent=1), encoding="utf-8")
    return path
