"""A deterministic stand-in for BEAM's judge, applied by the fake provider and by the tests."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from locoscore.benchmarks.beam.data import BeamDataset, load_beam

BEAM_100K = Path(__file__).resolve().parents[2] / "../shared/data/beam/100K"


def conversations_1_and_2() -> BeamDataset:
    """The real 100K data cut to its first two conversations (40 questions)."""
    full = load_beam(BEAM_100K)
    keep = {"1", "2"}
    return dataclasses.replace(
        full,
        conversations=tuple(c for c in full.conversations if c.conversation_id in keep),
        questions=tuple(q for q in full.questions if q.conversation_id in keep),
    )


_REQUIREMENT = re.compile(r"The requirement \(.*?\):\n(.*?)\n\n", re.DOTALL)
_FIRST = re.compile(r"First snippet \(a reference event\):\n(.*?)\n\n", re.DOTALL)
_FENCED = re.compile(r"<candidate-[0-9a-f]+>\n(.*)\n</candidate-[0-9a-f]+>", re.DOTALL)


def grade(requirement: str, reply: str) -> int:
    """100 when the reply holds the requirement's text, 50 when it holds its first word."""
    if requirement.lower() in reply.lower():
        return 100
    first = requirement.split()[0].lower()
    return 50 if first in reply.lower() else 0


def rule(prompt: str) -> int | str:
    """The verdict for a BEAM judge prompt (0 for any other prompt, e.g. an answerer's)."""
    fenced = _FENCED.search(prompt)
    if fenced is None:
        return 0
    reply = fenced.group(1)
    if (match := _FIRST.search(prompt)) is not None:
        return "CORRECT" if match.group(1).lower() in reply.lower() else "WRONG"
    requirement = _REQUIREMENT.search(prompt)
    return 0 if requirement is None else grade(requirement.group(1), reply)
