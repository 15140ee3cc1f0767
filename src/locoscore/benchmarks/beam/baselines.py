"""BEAM's published overall scores (0-1), second-hand ("as cited"): each under its own scoring
variant, so they are listed beside a run and never ranked against it or one another."""

from __future__ import annotations

from dataclasses import dataclass

SIZES = ("100K", "500K", "1M", "10M")


@dataclass(frozen=True)
class PublishedScore:
    system: str
    scoring: str
    source: str  # paper / self-reported
    by_size: dict[str, float]


PUBLISHED = (
    PublishedScore(
        "RAG (paper, Llama-4-Maverick)",
        "official (0.5 → 0, question withheld)",
        "paper",
        {"100K": 0.323, "500K": 0.330, "1M": 0.307, "10M": 0.249},
    ),
    PublishedScore(
        "LIGHT (paper, Llama-4-Maverick)",
        "official (0.5 → 0, question withheld)",
        "paper",
        {"100K": 0.358, "500K": 0.359, "1M": 0.336, "10M": 0.266},
    ),
    PublishedScore(
        "Hindsight",
        "Gemini judge, 0.5 kept",
        "self-reported",
        {"100K": 0.734, "500K": 0.711, "1M": 0.739, "10M": 0.641},
    ),
    PublishedScore(
        "Honcho",
        "own harness",
        "self-reported",
        {"100K": 0.630, "500K": 0.649, "1M": 0.631, "10M": 0.406},
    ),
    PublishedScore(
        "Mem0", "own 'nugget' scoring (not official)", "self-reported", {"1M": 0.641, "10M": 0.482}
    ),
    PublishedScore("Cognee", "own harness", "self-reported", {"100K": 0.79, "10M": 0.67}),
)
