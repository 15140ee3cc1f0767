"""Answer length: whitespace-separated words of each prediction, per group and overall.

A judge confound worth showing everywhere: a longer answer gives a lenient judge more text in
which to find the gold, so J rises with length even when the answers are no better.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from locoscore.generic.folder_parts import Groups

UNIT = "whitespace-separated words of the prediction"


def answer_words(prediction: Any) -> int:
    """Words of one prediction: `str.split()` (runs of whitespace; empty -> 0)."""
    return len(("" if prediction is None else str(prediction)).split())


@dataclass(frozen=True)
class LengthStats:
    n: int
    mean: float
    median: float

    @classmethod
    def of(cls, words: Sequence[int]) -> LengthStats:
        return cls(len(words), sum(words) / len(words), float(statistics.median(words)))


@dataclass(frozen=True)
class AnswerLengths:
    """Over every question of a folder (groups left out of overalls included when present)."""

    by_category: dict[Any, LengthStats]
    overall: LengthStats

    def to_dict(self) -> dict[str, Any]:
        """The `answer_length` key of summary.json's `report` section."""
        return {
            "unit": UNIT,
            "overall": asdict(self.overall),
            "by_category": {str(cid): asdict(s) for cid, s in self.by_category.items()},
        }


def answer_lengths(rows: Sequence[dict[str, Any]], groups: Groups) -> AnswerLengths | None:
    """Over the questions answered, per group in `groups`' order: an empty prediction (a
    failed answer call, or none given) is no answer of length 0; n says how many were
    counted."""
    rows = [r for r in rows if str(r.get("prediction") or "").strip()]
    if not rows:
        return None
    by_category = {}
    for cid in groups.order:
        words = [answer_words(r.get("prediction")) for r in rows if r[groups.field] == cid]
        if words:
            by_category[cid] = LengthStats.of(words)
    overall = LengthStats.of([answer_words(r.get("prediction")) for r in rows])
    return AnswerLengths(by_category, overall)


# Beyond this ratio of mean answer lengths, `compare` warns about the judge confound.
LENGTH_RATIO_WARNING = 2.0


def length_ratio_warning(
    mean_a: float, mean_b: float, names: tuple[str, str] = ("A", "B")
) -> str | None:
    """A warning when one side's mean answer is more than twice as long as the other's."""
    longer, shorter = max(mean_a, mean_b), min(mean_a, mean_b)
    if longer <= LENGTH_RATIO_WARNING * shorter:
        return None
    na, nb = names
    which = nb if mean_b > mean_a else na
    ratio = "no words at all on the other side" if shorter == 0 else f"{longer / shorter:.1f}x"
    return (
        f"mean answer lengths differ by more than {LENGTH_RATIO_WARNING:g}x "
        f"({na} {mean_a:.1f} words, {nb} {mean_b:.1f}; {which}'s answers are longer: {ratio}): "
        "a lenient judge finds the gold more easily in a longer answer, so a J difference "
        "may reflect answer length as much as memory"
    )
