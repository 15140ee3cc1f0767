"""LoCoMo's gold errata for the shared verified-gold view (`generic.gold_errata`,
`generic.errata_view`): its error types, the flags of an errata list it loaded, and the list
`compare --verified-gold` uses."""

from __future__ import annotations

from locoscore.benchmarks.locomo.data.errata import (
    CITATION_ONLY,
    ERRATA_SOURCE,
    SCORE_CHANGING,
    Errata,
)
from locoscore.generic.gold_errata import ErrataFlags, ErrataTypes, agreed_errata
from locoscore.generic.scored_folder import Results

ERRATA_TYPES = ErrataTypes(SCORE_CHANGING, CITATION_ONLY, "overall_no_adversarial")


def flags_of(errata: Errata) -> ErrataFlags:
    """The flags of an errata list loaded against the dataset, as summary.json records them."""
    return ErrataFlags(
        ERRATA_SOURCE,
        str(errata.path),
        errata.sha256,
        errata.checksum_ok,
        errata.flagged(),
        ERRATA_TYPES,
    )


def comparison_errata(errata: Errata | None, *folders: Results) -> ErrataFlags:
    """The errata for `compare --verified-gold`: the list given (or fetched), else the one
    the folders recorded when they were scored (`generic.gold_errata.agreed_errata`)."""
    return agreed_errata(None if errata is None else flags_of(errata), folders, ERRATA_TYPES)
