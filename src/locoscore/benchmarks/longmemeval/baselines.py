"""Published LongMemEval numbers as data, each with its reader, judge, file and source.

Every row is self-reported unless labelled reproduced; rows differ in reader, judge, prompt
and release (original vs cleaned `_s`), so none is comparable with another, nor with a
locoscore run, unless all of those match. Reports list them, never rank them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PublishedRow:
    system: str
    overall: float  # J, percent
    reader: str
    judge: str
    file: str
    source: str
    provenance: str  # "self-reported" or "reproduced"
    note: str = ""


BASELINES: tuple[PublishedRow, ...] = (
    PublishedRow("Full context (gpt-4o)", 60.2, "gpt-4o", "gpt-4o", "longmemeval_s",
                 "Zep paper, arXiv 2501.13956", "self-reported"),
    PublishedRow("Zep (2025)", 71.2, "gpt-4o", "gpt-4o", "longmemeval_s",
                 "Zep paper, arXiv 2501.13956", "self-reported",
                 "per type as quoted: SSU 92.9, SSA 80.4, SSP 56.7, KU 83.3, TR 62.4, MS 57.9"),
    PublishedRow("Zep (2026)", 90.2, "unconfirmed", "unconfirmed", "longmemeval_s",
                 "getzep.com/research", "self-reported"),
    PublishedRow("Mastra observational memory", 84.23, "gpt-4o", "not stated",
                 "longmemeval_s", "mastra.ai/research/observational-memory", "self-reported"),
    PublishedRow("Mastra observational memory", 94.87, "gpt-5-mini", "not stated",
                 "longmemeval_s", "mastra.ai/research/observational-memory", "self-reported"),
    PublishedRow("Emergence", 86.0, "gpt-4o", "not stated", "longmemeval_s (original)",
                 "Emergence blog, 2025-06", "self-reported"),
    PublishedRow("Hindsight", 83.6, "OSS-20B", "not stated", "longmemeval_s",
                 "arXiv 2512.12818", "self-reported"),
    PublishedRow("Hindsight", 91.4, "larger backbone", "not stated", "longmemeval_s",
                 "arXiv 2512.12818", "self-reported"),
    PublishedRow("Mem0 (2026)", 93.4, "not stated", "not stated", "longmemeval_s",
                 "mem0 blog, 2026-04", "self-reported", "94.4 also quoted"),
    *(
        PublishedRow(name, value, "gpt-4.1-mini", "gpt-4o-mini (LoCoMo-style generous prompt)",
                     "longmemeval_s", "MemTensor/OmniMemEval docs/benchmark-results.md",
                     "reproduced")
        for name, value in (
            ("MemOS", 89.2), ("EverOS", 80.4), ("Zep", 79.8), ("Letta", 77.7),
            ("Hindsight", 72.2), ("Supermemory", 66.1), ("Mem0", 56.0),
        )
    ),
)  # fmt: skip
