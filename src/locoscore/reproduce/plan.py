"""The rows of the Mem0 paper's LoCoMo table and how each is reproduced, or why it is not.

The paper's settings (`baselines.MEM0_J_ROWS`, docs/benchmarks/locomo.md): gpt-4o-mini
answers, a binary CORRECT/WRONG gpt-4o-mini judge, 10 judge runs (its ± is their std),
the 1,540 questions without category 5. Its best RAG retrieves the top 2 of 256-token
chunks. The paper does not record the memory systems' top-k: they run at the run's
default (10) unless `--top-k` says otherwise.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field

from locoscore.benchmarks.locomo import baselines

PAPER_MODEL = "gpt-4o-mini"  # the paper's answerer and judge
PAPER_JUDGE_PROTOCOL = "binary"
PAPER_JUDGE_RUNS = 10
RAG_TOP_K = 2
RAG_CHUNK_TOKENS = 256
SELF_JUDGING = (
    "Self-judged, as in the paper: gpt-4o-mini answers and gpt-4o-mini judges its own "
    "answers, which is lenient with them; the gap to the paper is measured under the same "
    "bias, but an absolute J here (and there) is an upper bound."
)


@dataclass(frozen=True)
class RunRow:
    """One row locoscore runs: `name` is its folder under DIR and its command-line name."""

    name: str
    label: str
    system: str
    published: str | None  # the paper's row it faces (`baselines.J_BASELINES`), if any
    options: dict[str, str] = field(default_factory=dict)
    top_k: int | None = None  # None: the command's --top-k
    extra: str | None = None  # the locoscore extra it needs
    module: str | None = None  # the module that extra installs
    note: str = ""
    # A system run in a pinned environment of its own (`systems.registry.SYSTEM_ENVIRONMENTS`)
    environment: str | None = None

    def installed(self) -> bool:
        if self.environment is not None:
            from locoscore.systems.environments import built_python
            from locoscore.systems.registry import environment_spec

            return built_python(environment_spec(self.environment)) is not None
        return self.module is None or importlib.util.find_spec(self.module) is not None

    def install_hint(self) -> str:
        if self.environment is not None:
            return f"locoscore systems install {self.environment}"
        return f"pip install 'locoscore[{self.extra}]'"

    @property
    def memory_library(self) -> bool:
        """A memory library with its own LLM and embedder (their base URLs are options)."""
        return self.extra is not None or self.environment is not None


@dataclass(frozen=True)
class SkippedRow:
    """A published row locoscore does not run, and why."""

    published: str
    why: str


RUN_ROWS: tuple[RunRow, ...] = (
    RunRow("full-context", "Full-context", "full-context", "Full-context"),
    RunRow(
        "rag-dense",
        f"RAG, dense (k={RAG_TOP_K}, {RAG_CHUNK_TOKENS}-token chunks)",
        "embedding",
        "RAG best (k=2, 256-token chunks)",
        {"chunk_tokens": str(RAG_CHUNK_TOKENS)},
        top_k=RAG_TOP_K,
    ),
    RunRow(
        "rag-bm25",
        "RAG, BM25 over turns",
        "bm25",
        None,
        note="no published counterpart: the paper's RAG is dense",
    ),
    RunRow("mem0", "Mem0", "mem0", "Mem0", extra="mem0", module="mem0"),
    RunRow(
        "mem0g",
        "Mem0g (graph memory on Kùzu)",
        "mem0",
        "Mem0g",
        {"graph": "kuzu"},
        environment="mem0g",
        note="mem0ai 1.0.11's graph memory on an embedded Kùzu graph, not the paper's Neo4j",
    ),
    RunRow(
        "graphiti",
        "Zep (Graphiti on Kùzu)",
        "graphiti",
        "Zep",
        extra="graphiti",
        module="graphiti_core",
        note="Zep's open-source engine in process, not Zep's hosted service the paper ran",
    ),
    RunRow("langmem", "LangMem", "langmem", "LangMem", extra="langmem", module="langmem"),
    RunRow(
        "a-mem",
        "A-Mem",
        "a-mem",
        "A-Mem*",
        extra="amem",
        module="agentic_memory",
        note="the a-mem 0.2 package (one note per turn), as the Mem0 authors re-ran A-Mem",
    ),
    RunRow(
        "letta",
        "Letta (server 0.11.7 on SQLite)",
        "letta",
        None,
        environment="letta",
        note=f"not a row of the paper's table: {baselines.LETTA_FOOTNOTE.text}",
    ),
)

SKIPPED_ROWS: tuple[SkippedRow, ...] = (
    SkippedRow("OpenAI Memory", "no API: ChatGPT's memory cannot be driven by a program"),
)


def row_named(name: str) -> RunRow:
    for row in RUN_ROWS:
        if row.name == name:
            return row
    raise KeyError(name)


def row_names() -> list[str]:
    return [row.name for row in RUN_ROWS]
