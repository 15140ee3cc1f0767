"""The metrics a report knows, each tied to its protocol and to the baselines it may face
(`generic.folder_parts.ColumnMetric`; an overall may count the adversarial category).

Reports look metrics up here instead of switching on column names: adding a metric is one
entry. F1 and BLEU-1 are stored 0-1 and shown x100; J is stored and shown 0-100.
"""

from __future__ import annotations

from locoscore.benchmarks.locomo import baselines
from locoscore.generic.folder_parts import ColumnMetric as Metric

F1_LOCOMO = Metric(
    "f1_locomo", "F1 (official LoCoMo)", "locomo", 100.0, True, baselines.PROTOCOL_LOCOMO_F1
)
F1_MEM0 = Metric(
    "f1_mem0", "F1 (Mem0 protocol)", "mem0", 100.0, False, baselines.PROTOCOL_MEM0_F1, decimals=2
)
BLEU1_MEM0 = Metric(
    "bleu1_mem0",
    "BLEU-1 (Mem0 protocol)",
    "mem0",
    100.0,
    False,
    baselines.PROTOCOL_MEM0_BLEU1,
    decimals=2,
)
F1_SPEC = Metric("f1_spec", "F1 (spec variant)", "spec", 100.0, True, None)
# J's comparable baselines depend on the judge protocol: see `judge_baseline_protocol`.
J = Metric("j_mean", "J (LLM judge)", "judge", 1.0, False, None, decimals=2)

METRICS: tuple[Metric, ...] = (F1_LOCOMO, F1_MEM0, BLEU1_MEM0, F1_SPEC, J)


def judge_baseline_protocol(judge_protocol: str | None) -> str | None:
    """Only a binary CORRECT/WRONG judge is on the scale of the Mem0 paper's J."""
    return baselines.PROTOCOL_MEM0_J if judge_protocol == "binary" else None
