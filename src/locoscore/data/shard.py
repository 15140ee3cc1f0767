"""Shards (`--shard I/N`): a deterministic split of a run's conversations into N parts.

Benchmark-neutral: the unit is a conversation (a LoCoMo conversation, a LongMemEval haystack,
a BEAM conversation), whole, so a system ingests each one once and its questions stay with
it. Its size is its number of turns.

- **Deterministic.** The assignment depends only on the conversations' ids and sizes and on
  N: never on Python's `hash()` (salted per process), the order the conversations come in,
  the machine or the Python version. Every machine given the same data, `--limit` and N
  computes the same split, so shard I knows its part without talking to the others.
- **Balanced by size.** Longest processing time first: the conversations, largest first
  (ties by sha256 of the id, then the id), each go to the shard with the fewest turns so
  far (ties: the fewest conversations, then the lowest index). No shard ends up more than
  one conversation's turns above the lightest.
- **After the sample.** With `--limit`, the sample is drawn over every question first, and
  only the conversations it asks about are split, so N shards of a sample are that sample.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from locoscore._io import sha256_text
from locoscore.data.conversation import Conversation, Question
from locoscore.data.sample import QuestionSample, SampleSpec, with_component
from locoscore.errors import InputError

SHARD_RULE = (
    "whole conversations, largest first (ties: sha256 of the id), each to the shard with "
    "the fewest turns so far (ties: fewest conversations, lowest index)"
)


@dataclass(frozen=True)
class Shard:
    """Shard `index` (0-based) of `count`."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str | None, option: str = "--shard") -> Shard | None:
        """`I/N` as the CLI takes it (None: no sharding)."""
        if text is None:
            return None
        head, sep, tail = text.strip().partition("/")
        if not (sep and head.strip().isdigit() and tail.strip().isdigit()):
            raise InputError(f"expected I/N (e.g. 0/4), got {text!r}", field=option)
        index, count = int(head), int(tail)
        if count < 1 or index >= count:
            raise InputError(f"{text}: expected 0 <= I < N and N >= 1", field=option)
        return cls(index, count)

    @property
    def signature(self) -> str:
        return f"shard:{self.index}/{self.count}"

    def assign(self, sizes: Iterable[tuple[str, int]]) -> dict[str, int]:
        """Conversation id -> its shard, for every conversation given as (id, size)."""
        return assign(sizes, self.count)

    def keep(self, sizes: Sequence[tuple[str, int]]) -> set[str]:
        """The ids of this shard's conversations; refused when it would hold none (more
        shards than conversations)."""
        if len(sizes) < self.count:
            raise InputError(
                f"{len(sizes)} conversation(s) cannot fill {self.count} shards; use at most "
                f"{len(sizes)}",
                field="--shard",
            )
        return {cid for cid, shard in self.assign(sizes).items() if shard == self.index}

    def to_json(
        self,
        conversations: int,
        questions: int,
        population: int,
        selection: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """`selection`: every conversation the N shards split between them (after
        `--conversations` and `--limit`): what tells two runs' shards apart when their
        signatures agree (`--conversations` is no part of a signature)."""
        return {
            "signature": self.signature,
            "index": self.index,
            "count": self.count,
            "conversations": conversations,
            "questions": questions,
            "population": population,  # questions across all shards
            **({} if selection is None else {"selection": list(selection)}),
            "rule": SHARD_RULE,
        }


def _tiebreak(cid: str) -> tuple[str, str]:
    return sha256_text(cid), cid


def assign(sizes: Iterable[tuple[str, int]], count: int) -> dict[str, int]:
    """Longest processing time first over `count` shards (see the module's docstring)."""
    listed = list(sizes)
    if len({cid for cid, _ in listed}) != len(listed):
        raise InputError("two conversations share an id; cannot shard them", field="--shard")
    loads = [0] * count
    members = [0] * count
    out: dict[str, int] = {}
    for cid, size in sorted(listed, key=lambda item: (-item[1], _tiebreak(item[0]))):
        target = min(range(count), key=lambda s: (loads[s], members[s], s))
        out[cid] = target
        loads[target] += size
        members[target] += 1
    return out


def with_shard(signature: str, shard: Shard | None) -> str:
    """A signature with the shard's component, before `|version:` (as the sample's)."""
    return with_component(signature, None if shard is None else shard.signature)


def without_shard(signature: str) -> str:
    """The signature of the whole run a shard's signature belongs to."""
    return "|".join(p for p in signature.split("|") if not p.startswith("shard:"))


def shard_of(signature: str | None) -> str | None:
    """The `shard:I/N` component of a signature, if any."""
    for part in (signature or "").split("|"):
        if part.startswith("shard:"):
            return part
    return None


def shard_question_ids(
    shard: Shard,
    conversations: Sequence[Conversation],
    questions: Sequence[Question],
    judged: Iterable[str],
) -> frozenset[str]:
    """`judge --shard`: which of the `judged` question ids are this shard's. The split is
    over the conversations those questions belong to, as `run --shard` splits the
    conversations it asks about, so a judge's shard I of a run's predictions is the run's
    shard I."""
    wanted = set(judged)
    owner = {q.question_id: q.conversation_id for q in questions if q.question_id in wanted}
    held = set(owner.values())
    sizes = [(c.conversation_id, c.turn_count) for c in conversations if c.conversation_id in held]
    mine = shard.keep(sizes)
    return frozenset(qid for qid, cid in owner.items() if cid in mine)


@dataclass(frozen=True)
class ShardSample(QuestionSample):
    """The questions of one shard, as the judge's `sample` (which questions to judge): the
    shard's part of the whole sample (`whole`, None: of every question). Its signature
    part is the whole sample's, then `shard:I/N`."""

    shard: Shard | None = None
    whole: QuestionSample | None = None
    total: int = 0  # the questions across every shard

    @classmethod
    def of(
        cls, shard: Shard, ids: Iterable[str], whole: QuestionSample | None, total: int
    ) -> ShardSample:
        ids = frozenset(ids)
        if whole is None:
            spec, name, strata = SampleSpec(max(total, 1)), "type", {}
            population = total
        else:
            spec, name, strata = whole.spec, whole.stratum_name, whole.strata
            population = whole.population
        return cls(spec, name, population, strata, ids, shard, whole, total)

    @property
    def signature(self) -> str:
        assert self.shard is not None
        head = "" if self.whole is None else f"{self.whole.signature}|"
        return head + self.shard.signature

    def describe(self) -> str:
        assert self.shard is not None
        return (
            f"shard {self.shard.index}/{self.shard.count} ({self.size:,} of the "
            f"{self.total:,} questions)"
        )

    def to_json(self) -> dict[str, Any]:
        assert self.shard is not None
        base = {} if self.whole is None else self.whole.to_json()
        return {
            **base,
            "signature": self.signature,
            "size": self.size,
            "population": self.total if self.whole is None else self.whole.population,
            "shard": self.shard.to_json(0, self.size, self.total),
            "question_ids": sorted(self.ids),
        }
