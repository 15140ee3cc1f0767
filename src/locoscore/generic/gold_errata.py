"""A gold errata list as a results folder records it, and the ceiling the gold as written
puts on a perfect system.

An errata list flags questions whose gold answer is wrong or ambiguous (those types change
a score) or whose only fault leaves the gold standing (a wrong citation, say). It is applied
by `score`, `judge` or `report` and recorded in summary.json's `errata` section (the flagged
question keys and their error types), so that a report can be rebuilt with the same view
without the errata file. The benchmark declares its error types (`ErrataTypes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from locoscore.errors import InputError
from locoscore.generic.folder_parts import Groups, SubsetView
from locoscore.generic.scored_folder import Results
from locoscore.results.folder import row_key
from locoscore.results.layout import SUMMARY


@dataclass(frozen=True)
class ErrataTypes:
    """A benchmark's error types: those that make the gold wrong or ambiguous, those that
    leave it standing; and the key of the ceiling on the groups an overall leaves out by
    default (summary.json's `ceiling.<key>`)."""

    score_changing: tuple[str, ...]
    gold_stands: tuple[str, ...]
    without_excluded_key: str

    @property
    def all(self) -> tuple[str, ...]:
        return self.score_changing + self.gold_stands

    @property
    def kept_words(self) -> str:
        """ "WRONG_CITATION" (the types whose questions stay), for the texts."""
        return ", ".join(self.gold_stands)


@dataclass(frozen=True)
class ErrataFlags:
    """An errata list as recorded in summary.json: where it came from and what it flags."""

    source: str
    path: str
    sha256: str
    checksum_ok: bool
    flagged: dict[str, str]  # question key (`results.folder.row_key`) -> error type
    types: ErrataTypes

    @classmethod
    def from_section(cls, section: Any, file: str, types: ErrataTypes) -> ErrataFlags:
        """Read the recorded `errata` section (its source, path, sha256 and flags)."""
        if not isinstance(section, dict):
            raise InputError("expected an object", file=file, field="errata")
        flagged = section.get("flagged")
        if not isinstance(flagged, dict) or not all(
            isinstance(k, str) and v in types.all for k, v in flagged.items()
        ):
            raise InputError(
                "expected {question key: known error type}", file=file, field="errata.flagged"
            )
        sha256 = section.get("sha256")
        if not isinstance(sha256, str):
            raise InputError("expected a string", file=file, field="errata.sha256")
        return cls(
            source=str(section.get("source", "")),
            path=str(section.get("path", "")),
            sha256=sha256,
            checksum_ok=bool(section.get("checksum_ok")),
            flagged=dict(flagged),
            types=types,
        )

    def error_type(self, row: dict[str, Any]) -> str | None:
        return self.flagged.get(row_key(row))

    def gold_stands(self, row: dict[str, Any]) -> bool:
        """False for a question whose gold answer the errata say is wrong or ambiguous."""
        return self.error_type(row) not in self.types.score_changing

    def view(self) -> SubsetView:
        """The verified-gold view `compare` adds: the paired questions whose gold stands."""
        return SubsetView(
            "verified gold",
            "Verified-gold view",
            self.gold_stands,
            self._describe,
            "whose gold stands",
        )

    def _describe(self, paired: int, left_out: int, kept: int) -> str:
        checksum = "the audited list" if self.checksum_ok else "DIFFERS from the audited list"
        return (
            f"Gold errata: {self.source or self.path}, sha256 {self.sha256} ({checksum}). Of "
            f"the {paired} shared questions, {left_out} have a gold answer the errata call "
            f"wrong or ambiguous and are left out; the {kept} whose gold stands "
            f"({self.types.kept_words} kept) are compared again below, with their own n, "
            "intervals and tests."
        )


@dataclass(frozen=True)
class Ceiling:
    """One group of questions: how many, how many have a wrong gold, how many only a fault
    that leaves the gold standing, and the best score a perfect system can get against the
    gold as written."""

    n: int
    gold_wrong: int
    citation_only: int

    @property
    def ceiling(self) -> float:
        """Share of questions whose gold stands, 0-100."""
        return 100.0 * (self.n - self.gold_wrong) / self.n

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ceiling": self.ceiling}


def _ceiling(rows: Sequence[dict[str, Any]], flags: ErrataFlags) -> Ceiling:
    types = [flags.error_type(r) for r in rows]
    wrong = flags.types.score_changing
    return Ceiling(
        n=len(rows),
        gold_wrong=sum(1 for t in types if t in wrong),
        citation_only=sum(1 for t in types if t is not None and t not in wrong),
    )


@dataclass(frozen=True)
class GoldCeilings:
    by_category: dict[Any, Ceiling]
    overall_without_excluded: Ceiling | None  # the groups an overall leaves out by default
    overall_all: Ceiling

    def to_dict(self, types: ErrataTypes) -> dict[str, Any]:
        without = self.overall_without_excluded
        return {
            "by_category": {str(cid): c.to_dict() for cid, c in self.by_category.items()},
            types.without_excluded_key: None if without is None else without.to_dict(),
            "overall_all": self.overall_all.to_dict(),
        }


def gold_ceilings(
    rows: Sequence[dict[str, Any]], flags: ErrataFlags, groups: Groups
) -> GoldCeilings:
    """Ceilings for the questions present in `rows`, per group and overall."""
    by_category = {}
    for cid in groups.order:
        group = [r for r in rows if r[groups.field] == cid]
        if group:
            by_category[cid] = _ceiling(group, flags)
    kept = [r for r in rows if r[groups.field] not in groups.excluded]
    return GoldCeilings(
        by_category=by_category,
        overall_without_excluded=_ceiling(kept, flags) if kept else None,
        overall_all=_ceiling(rows, flags),
    )


def agreed_errata(
    given: ErrataFlags | None, folders: Sequence[Results], types: ErrataTypes
) -> ErrataFlags:
    """The errata for `compare --verified-gold`: the list given (or fetched), else the one
    the folders recorded when they were scored; they must not disagree."""
    if given is not None:
        return given
    recorded = [
        (f, ErrataFlags.from_section(f.summary["errata"], str(f.path / SUMMARY), types))
        for f in folders
        if f.summary.get("errata") is not None
    ]
    if not recorded:
        raise InputError(
            "--verified-gold needs the gold errata: pass --errata PATH (with --dataset), set "
            "$LOCOSCORE_ERRATA, run `locoscore dataset fetch errata`, or score the folders "
            "with --errata"
        )
    hashes = {flags.sha256 for _, flags in recorded}
    if len(hashes) > 1:
        raise InputError(
            "the folders recorded different errata lists ("
            + ", ".join(f"{f.path}: {flags.sha256[:12]}" for f, flags in recorded)
            + "); pass --errata PATH to choose one",
            field="errata.sha256",
        )
    return recorded[0][1]
