"""PersonaMem's two scoring protocols: how the options are shown and how a reply is read.

`locoscore` (the default) shows the options in a seeded order and reads replies with
locoscore's parser; `official` shows them in the stored order and reads replies as the
official `extract_answer` does (`replies`), leaving a failed answer out of the denominator as
the official code does. `score --protocols NAME` picks one (`PersonaMem.for_protocol`, the
hook a run's `--protocol` calls too); the scores' signature names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Protocol:
    """How replies are shown and read: its name, the option order's shuffle seed (None: the
    stored order), its parser (named in the signature) and the headline's label."""

    name: str
    seed: int | None
    parser: str
    label: str

    @property
    def official(self) -> bool:
        return self.name == "official"

    @property
    def order_part(self) -> str:
        """The option order, as the `bench:` signature part ends."""
        return "stored" if self.seed is None else f"shuffle{self.seed}"

    def describe(self, signature: str) -> dict[str, Any]:
        """summary.json `scoring`."""
        return {
            "protocol": self.name,
            "parser": self.parser,
            "option_order": "stored" if self.seed is None else f"shuffled, seed {self.seed}",
            "failed_answers": "left out of the denominator" if self.official else "scored 0",
            "signature": signature,
        }


LOCOSCORE = Protocol("locoscore", 0, "locoscore-v2", "accuracy")
OFFICIAL = Protocol("official", None, "official", "accuracy (official parse)")
PROTOCOLS = {p.name: p for p in (LOCOSCORE, OFFICIAL)}
