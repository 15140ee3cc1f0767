"""Lexical scores of loaded predictions written into a results folder: what `locoscore
score` does, also called by `locoscore run` on the predictions it produced."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from locoscore._version import __version__
from locoscore.benchmarks.locomo.data.load import LoadedPredictions
from locoscore.benchmarks.locomo.scoring.protocols import PROTOCOLS, get_protocol
from locoscore.benchmarks.locomo.scoring.run import lexical_summary, score_records
from locoscore.results.folder import write_results


def score_into_folder(
    loaded: LoadedPredictions,
    out: Path,
    protocol_names: Sequence[str],
    extra_sections: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """scores.jsonl and summary.json (keeping other commands' fields); the summary."""
    selected = [get_protocol(name) for name in protocol_names]
    rows = score_records(loaded.records, selected)
    sections = {
        "locoscore_version": __version__,
        **loaded.provenance(),
        "lexical": lexical_summary(rows, selected),
        **(extra_sections or {}),
    }
    owned = tuple(p.column(m) for p in PROTOCOLS.values() for m in p.metrics)
    return write_results(out, rows, sections, owned_prefixes=owned)
