"""Lexical protocols as small registered objects with one interface and a signature.

A signature (in the spirit of sacreBLEU's) names everything that changes the number:
protocol, normaliser, tokeniser, stemmer, aggregation and the package version. It goes
everywhere the protocol's numbers go.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from locoscore._version import __version__
from locoscore.benchmarks.locomo.categories import ADVERSARIAL
from locoscore.benchmarks.locomo.scoring.locomo import score_f1_locomo
from locoscore.benchmarks.locomo.scoring.mem0 import bleu1, score_f1_mem0
from locoscore.benchmarks.locomo.scoring.spec import compute_token_f1
from locoscore.stem import NLTK_VERSION, STEMMER_ID

MetricFn = Callable[[str, str | int, int], float]


@dataclass(frozen=True)
class LexicalProtocol:
    name: str
    description: str
    metrics: dict[str, MetricFn]  # metric name -> fn(prediction, answer, category) -> 0..1
    signature_fields: tuple[tuple[str, str], ...]
    overall_includes_adversarial: bool

    def scores_category(self, category: int) -> bool:
        """Whether the protocol scores this category at all (Mem0's leaves adversarial out:
        its lexical metrics against the trap answer would mean nothing)."""
        return self.overall_includes_adversarial or category != ADVERSARIAL

    @property
    def signature(self) -> str:
        fields = [("proto", self.name), *self.signature_fields, ("version", __version__)]
        return "|".join(f"{key}:{value}" for key, value in fields)

    def column(self, metric: str) -> str:
        """Column name in scores.jsonl, e.g. `f1_locomo`, `bleu1_mem0`."""
        return f"{metric}_{self.name}"


LOCOMO = LexicalProtocol(
    name="locomo",
    description="Official LoCoMo-paper F1 (per-category rules, Porter stem, multiset overlap)",
    metrics={"f1": score_f1_locomo},
    signature_fields=(
        ("norm", "locomo"),
        ("stem", STEMMER_ID),
        ("overlap", "multiset"),
        ("cat1", "comma-partial"),
        ("cat3", "before-semicolon"),
        ("cat5", "abstention-phrase"),
        ("empty", "0"),
        ("overall", "q-weighted+cat5"),
    ),
    overall_includes_adversarial=True,
)

MEM0 = LexicalProtocol(
    name="mem0",
    description="Mem0-paper F1 (set overlap, no stemming) and BLEU-1 (NLTK, smoothing method1)",
    metrics={
        "f1": lambda prediction, answer, category: score_f1_mem0(prediction, answer),
        "bleu1": lambda prediction, answer, category: bleu1(prediction, answer),
    },
    signature_fields=(
        ("norm", "mem0"),
        ("stem", "none"),
        ("overlap", "set"),
        ("bleu", f"nltk{NLTK_VERSION}-w1000-smooth1"),
        ("wtok", "treebank+punkt-en"),
        ("overall", "q-weighted-no-cat5"),
    ),
    overall_includes_adversarial=False,
)

SPEC = LexicalProtocol(
    name="spec",
    description="The seed spec's F1 variant (Porter stem, multiset; empty vs empty = 1.0)",
    metrics={"f1": lambda prediction, answer, category: compute_token_f1(prediction, str(answer))},
    signature_fields=(
        ("norm", "spec"),
        ("stem", STEMMER_ID),
        ("overlap", "multiset"),
        ("empty", "1"),
        ("overall", "q-weighted+cat5"),
    ),
    overall_includes_adversarial=True,
)

PROTOCOLS: dict[str, LexicalProtocol] = {p.name: p for p in (LOCOMO, MEM0, SPEC)}


def get_protocol(name: str) -> LexicalProtocol:
    try:
        return PROTOCOLS[name]
    except KeyError:
        known = ", ".join(PROTOCOLS)
        raise ValueError(f"unknown protocol {name!r} (known: {known})") from None
