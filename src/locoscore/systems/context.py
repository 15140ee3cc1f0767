"""What a run lends the memory system it builds (`Class(options, context)`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from locoscore.llm.cost import PriceTable


@dataclass(frozen=True)
class SystemContext:
    """What a run lends its system: a folder for state and caches (inside the run), and the
    run's price table (`--prices`), so what the system spends is costed like the answers."""

    state_dir: Path
    prices: PriceTable = field(default_factory=PriceTable)
