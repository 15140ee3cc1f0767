"""Smoke tests on a sample: a deterministic, stratified subset of a benchmark's questions.

Benchmark-neutral: a sample is drawn over any items given a stable id and a stratum (the
question's category for LoCoMo, its question type elsewhere). `draw_questions` is the one
draw `run`, `judge` and `audit` make for every benchmark: (question id, type) pairs, each
type put in its stratum by the benchmark's own key (`Benchmark.draw_sample`), so the same
`--limit/--limit-per/--seed` over the same questions picks the same ones in every command.
A run's drawn sample is written to run.json; `judge` of that run's predictions reads it back
(`QuestionSample.from_json`, `judged_sample`) and judges exactly it.

- **Deterministic.** Each item is ranked within its stratum by sha256("<seed>:<id>"), ties
  (none in practice) by id; the first ones are taken. Which items are drawn depends only on
  the ids, the strata, the limit and the seed: not on the order the items come in, nor on
  Python's hash seed. A larger limit with the same seed keeps a stratum's earlier picks.
- **Stratified.** `per="total"`: `limit` items overall, split across strata in proportion to
  their sizes by the largest-remainder (Hamilton) rule: each stratum gets the floor of its
  quota limit × size / population, and the items left over go one each to the strata with
  the largest fractional remainders (ties: the larger stratum, then the smaller stratum
  key). A stratum can get none when the limit is small. `per="stratum"`: `limit` items from
  every stratum (all of a smaller one).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, Protocol, TypeVar

from locoscore._io import sha256_text
from locoscore.errors import InputError

T = TypeVar("T")
Per = Literal["total", "stratum"]
PER_CHOICES: dict[str, Per] = {"total": "total", "category": "stratum"}
ROUNDING_RULE = (
    "largest remainder (Hamilton): floor of limit x stratum size / population, leftovers to "
    "the largest remainders (ties: larger stratum, then smaller key)"
)


def _rank(seed: int, item_id: str) -> str:
    return sha256_text(f"{seed}:{item_id}")


def _sort_key(value: Hashable) -> tuple[str, str]:
    """Strata sort by their key (ints as numbers would, via zero padding), stably across
    Python runs."""
    text = str(value)
    return (text.zfill(20) if text.isdigit() else text, text)


def largest_remainder(sizes: dict[Hashable, int], limit: int) -> dict[Hashable, int]:
    """How many of `limit` items each stratum gets, proportional to `sizes` (Hamilton)."""
    population = sum(sizes.values())
    if limit >= population:
        return dict(sizes)
    quotas = {key: Fraction(limit * size, population) for key, size in sizes.items()}
    counts = {key: int(q) for key, q in quotas.items()}  # floor: quotas are non-negative
    left = limit - sum(counts.values())
    order = sorted(sizes, key=lambda k: (-(quotas[k] - counts[k]), -sizes[k], _sort_key(k)))
    for key in order[:left]:
        counts[key] += 1
    return counts


@dataclass(frozen=True)
class SampleSpec:
    """What `--limit N [--limit-per total|category] [--seed S]` asks for."""

    limit: int
    per: Per = "total"
    seed: int = 0

    def __post_init__(self) -> None:
        if self.limit < 1:
            raise InputError("must be at least 1", field="--limit")

    def draw(
        self,
        items: Sequence[T],
        *,
        item_id: Callable[[T], str],
        stratum: Callable[[T], Hashable],
        stratum_name: str = "category",
    ) -> QuestionSample:
        """The sample of `items` (ids must be unique)."""
        groups: dict[Hashable, list[str]] = {}
        for item in items:
            groups.setdefault(stratum(item), []).append(item_id(item))
        ids = [i for group in groups.values() for i in group]
        if len(set(ids)) != len(ids):
            raise InputError("two questions share an id; cannot sample them", field="--limit")
        sizes = {key: len(group) for key, group in groups.items()}
        if self.per == "total":
            counts = largest_remainder(sizes, self.limit)
        else:
            counts = {key: min(self.limit, size) for key, size in sizes.items()}
        chosen: set[str] = set()
        for key, group in groups.items():
            ranked = sorted(group, key=lambda i: (_rank(self.seed, i), i))
            chosen.update(ranked[: counts[key]])
        strata = {
            str(key): {"population": sizes[key], "sample": counts[key]}
            for key in sorted(groups, key=_sort_key)
        }
        return QuestionSample(self, stratum_name, len(ids), strata, frozenset(chosen))


def draw_questions(
    spec: SampleSpec,
    questions: Iterable[tuple[str, Hashable]],
    *,
    type_key: Callable[[Any], Hashable],
    stratum_name: str,
) -> QuestionSample:
    """The sample of (question id, question type) pairs, each type in the stratum
    `type_key(type)`; `stratum_name` names the strata in the signature and run.json."""
    return spec.draw(
        list(questions),
        item_id=lambda q: q[0],
        stratum=lambda q: type_key(q[1]),
        stratum_name=stratum_name,
    )


@dataclass(frozen=True)
class QuestionSample:
    """A drawn sample: which ids, out of how many, per stratum; its signature and JSON."""

    spec: SampleSpec
    stratum_name: str
    population: int
    strata: dict[str, dict[str, int]]
    ids: frozenset[str]

    @property
    def size(self) -> int:
        return len(self.ids)

    @property
    def signature(self) -> str:
        """e.g. `sample:50/1986@seed0:strat-cat` or `sample:50/1986@seed0:10-per-cat`."""
        short = self.stratum_name[:3] if self.stratum_name == "category" else self.stratum_name
        s = self.spec
        mode = f"strat-{short}" if s.per == "total" else f"{s.limit}-per-{short}"
        return f"sample:{self.size}/{self.population}@seed{s.seed}:{mode}"

    def describe(self) -> str:
        """One phrase for reports: "a sample of 50 of 1,986 questions"."""
        return f"a sample of {self.size:,} of {self.population:,} questions"

    def keep(self, items: Sequence[T], item_id: Callable[[T], str]) -> list[T]:
        """The sampled items, in the order given."""
        return [item for item in items if item_id(item) in self.ids]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> QuestionSample:
        """The sample `to_json` wrote (run.json's `sample`); ValueError when the record
        cannot be read (the caller names its file)."""
        try:
            name = str(data["stratified_by"])
            per: Per = "total" if data["per"] == "total" else "stratum"
            spec = SampleSpec(int(data["limit"]), per, int(data["seed"]))
            strata = {
                str(k): {"population": int(v["population"]), "sample": int(v["sample"])}
                for k, v in data["by_stratum"].items()
            }
            ids = frozenset(str(i) for i in data["question_ids"])
            return cls(spec, name, int(data["population"]), strata, ids)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"unreadable sample record ({exc!r})") from None

    def to_json(self) -> dict[str, Any]:
        s = self.spec
        return {
            "signature": self.signature,
            "size": self.size,
            "population": self.population,
            "seed": s.seed,
            "limit": s.limit,
            "per": "total" if s.per == "total" else self.stratum_name,
            "stratified_by": self.stratum_name,
            "rounding": ROUNDING_RULE if s.per == "total" else f"{s.limit} per {self.stratum_name}",
            "ranking": "sha256 of '<seed>:<question id>' within each stratum",
            "by_stratum": self.strata,
            "question_ids": sorted(self.ids, key=_id_order),
        }


class SampleDraw(Protocol):
    """What a command below the benchmarks needs of one to draw its sample
    (`Benchmark.draw_sample`): named here so that the judge never imports the benchmarks."""

    def draw_sample(
        self, request: SampleSpec | QuestionSample | None, questions: Iterable[tuple[str, int]]
    ) -> QuestionSample | None: ...


def _id_order(item_id: str) -> tuple[str, int, str]:
    """`conv-26#2` before `conv-26#10`; any other id by its text."""
    head, sep, tail = item_id.rpartition("#")
    if sep and tail.isdigit():
        return head, int(tail), item_id
    return item_id, -1, item_id


def with_component(signature: str, component: str | None) -> str:
    """A signature with one more component, before `|version:` (as the others end); the
    sample's, the shard's and the conversations' all go in this way."""
    if component is None:
        return signature
    head, sep, version = signature.rpartition("|version:")
    if not sep:
        return f"{signature}|{component}"
    return f"{head}|{component}|version:{version}"


def with_sample(signature: str, sample: QuestionSample | None) -> str:
    """A signature with the sample's component, before `|version:`."""
    return with_component(signature, None if sample is None else sample.signature)


def without_sample(signature: str | None) -> str | None:
    """The signature with any `sample:` component removed (to compare configurations)."""
    if signature is None:
        return None
    return "|".join(p for p in signature.split("|") if not p.startswith("sample:"))


def sample_spec(limit: int | None, per: str | None, seed: int | None) -> SampleSpec | None:
    """The CLI's three options, checked: `--limit-per` and `--seed` need `--limit`."""
    if limit is None:
        for name, value in (("--limit-per", per), ("--seed", seed)):
            if value is not None:
                raise InputError("needs --limit N", field=name)
        return None
    choice = per or "total"
    if choice not in PER_CHOICES:
        raise InputError(f"expected one of {', '.join(PER_CHOICES)}", field="--limit-per")
    return SampleSpec(limit, PER_CHOICES[choice], 0 if seed is None else seed)


def judged_sample(
    spec: SampleSpec | None, run: QuestionSample | None
) -> SampleSpec | QuestionSample | None:
    """What `judge` judges of predictions: a run's own sample when they are one (`run`,
    from its run.json), else `--limit`'s spec to draw (None: every question). Another
    `--limit` than the run's would judge questions the run never asked: refused."""
    if run is None:
        return spec
    if spec is not None and spec != run.spec:
        raise InputError(
            f"the predictions are a run's sample ({run.signature}): judge them without "
            "--limit, or with the run's --limit, --limit-per and --seed",
            field="--limit",
        )
    return run
