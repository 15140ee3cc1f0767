"""LoCoMo's parts, declared for the shared machinery: what `compare` reads
(`generic.compare_parts`) — the categories, the lexical protocols and the judge as metric
columns, the question key's fields, the lexical signatures and the judge's runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from locoscore.benchmarks.locomo.categories import GROUPS
from locoscore.benchmarks.locomo.report.metrics import METRICS
from locoscore.generic.compare_parts import CompareParts


def lexical_signatures(summary: dict[str, Any]) -> Mapping[str, Any]:
    """Each lexical protocol's signature in summary.json (`lexical.<name>.signature`)."""
    lexical = summary.get("lexical") or {}
    return {name: section.get("signature") for name, section in lexical.items()}


COMPARE = CompareParts(
    groups=GROUPS,
    metrics=METRICS,
    id_fields=("sample_id", "qa_index"),
    scales="F1 and BLEU-1 x100, J 0-100",
    signatures=lexical_signatures,
    judge_runs="j_scores",
    judge_includes="include_adversarial",
)
