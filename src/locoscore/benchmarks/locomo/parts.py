"""LoCoMo's parts, declared for the shared machinery over its results folders
(`generic.folder_parts`: the loader, `compare`, the judge's table): the categories, the
lexical protocols and the judge as metric columns, the question key's fields, the lexical
signatures, the judge's runs and the other columns a row's numbers are checked in (its
`judge` parts are declared by the benchmark's `judge_command` hook; its report's, built on
these, by `report_parts.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from locoscore.benchmarks.locomo.categories import GROUPS
from locoscore.benchmarks.locomo.metrics import METRICS
from locoscore.generic.folder_parts import FolderParts


def lexical_signatures(summary: dict[str, Any]) -> Mapping[str, Any]:
    """Each lexical protocol's signature in summary.json (`lexical.<name>.signature`)."""
    lexical = summary.get("lexical") or {}
    return {name: section.get("signature") for name, section in lexical.items()}


PARTS = FolderParts(
    groups=GROUPS,
    metrics=METRICS,
    id_fields=("sample_id", "qa_index"),
    scales="F1 and BLEU-1 x100, J 0-100",
    signatures=lexical_signatures,
    judge_runs="j_scores",
    checked_numbers=("j_std", "search_latency_s", "total_latency_s", "context_tokens"),
    judge_includes="include_adversarial",
)
