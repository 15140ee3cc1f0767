"""The metrics a report knows, each tied to its protocol and to the baselines it may face.

Reports look metrics up here instead of switching on column names: adding a metric is one
entry. F1 and BLEU-1 are stored 0-1 and shown x100; J is stored and shown 0-100.
"""

from __future__ import annotations

from dataclasses import dataclass

from locoscore.benchmarks.locomo import baselines


@dataclass(frozen=True)
class Metric:
    column: str  # field in scores.jsonl
    label: str  # what a table header says
    protocol: str  # key under summary.json "lexical" (or "judge")
    scale: float  # multiply stored values by this to show them
    # The protocol's own convention for its overall score.
    overall_includes_adversarial: bool
    baseline_protocol: (
        str | None
    )  # rows of locoscore.benchmarks.locomo.baselines it may be compared with
    decimals: int = 1

    @property
    def is_judge(self) -> bool:
        return self.protocol == "judge"


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
