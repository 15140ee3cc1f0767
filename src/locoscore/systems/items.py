"""What the built-in retrievers share: a session cut into retrievable items, and a
deterministic top-k."""

from __future__ import annotations

import numpy as np

from locoscore.data.conversation import SessionInput
from locoscore.systems.base import MemoryItem

GRANULARITIES = ("turn", "session")


def session_items(session: SessionInput, granularity: str) -> list[MemoryItem]:
    """The retrievable units of a session: one per turn, or the whole session."""
    if granularity == "session":
        return [
            MemoryItem(
                text=session.render(),
                date_iso=session.date_iso,
                date_raw=session.date_raw,
                dia_ids=tuple(t.dia_id for t in session.turns),
            )
        ]
    return [
        MemoryItem(
            text=turn.render(),
            date_iso=session.date_iso,
            date_raw=session.date_raw,
            dia_ids=(turn.dia_id,),
        )
        for turn in session.turns
    ]


def top_k_indices(scores: np.ndarray, k: int) -> list[int]:
    """Indices of the k best scores, ties broken by position (stable)."""
    order = np.argsort(-scores, kind="stable")
    return [int(i) for i in order[:k]]
