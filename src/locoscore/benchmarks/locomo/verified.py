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
from locoscore.errors import InputError
from locoscore.generic.gold_errata import ErrataFlags, ErrataTypes
from locoscore.generic.scored_folder import Results
from locoscore.results.layout import SUMMARY

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
    the folders recorded when they were scored; they must not disagree."""
    if errata is not None:
        return flags_of(errata)
    recorded = [
        (f, ErrataFlags.from_section(f.summary["errata"], str(f.path / SUMMARY), ERRATA_TYPES))
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
