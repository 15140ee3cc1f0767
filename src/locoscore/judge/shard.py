"""`judge --shard I/N`: which questions a judge of one shard judges, as a sample (the
judge's `sample` is the set of questions it judges; its signature gains `shard:I/N`).

- A shard run's own predictions (run.json records the shard): exactly its questions, the
  shard its run.json names (another `--shard` is refused).
- Any other predictions: the questions the judge would judge (after `--limit`'s draw), split
  by whole conversations as `run --shard` splits them, shard I kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from locoscore.data.conversation import Conversation, Question
from locoscore.data.models import PredictionRecord
from locoscore.data.sample import QuestionSample, SampleDraw, SampleSpec
from locoscore.data.shard import Shard, ShardSample, shard_question_ids
from locoscore.errors import InputError
from locoscore.judge.from_records import judged_records


class ShardedBenchmark(SampleDraw, Protocol):
    """What a shard's judge needs of a benchmark (`Benchmark`'s own methods), named here so
    that the judge, below the benchmarks, never imports them."""

    def conversations(self, data: Any) -> list[Conversation]: ...

    def questions(
        self, data: Any, conversations: Sequence[Conversation], *, include_excluded: bool = True
    ) -> list[Question]: ...


def run_shard_sample(
    ran: tuple[Shard, list[str], int],
    wanted: Shard | None,
    run_sample: QuestionSample | None,
    spec: SampleSpec | None,
) -> ShardSample:
    shard, ids, total = ran
    if wanted is not None and wanted != shard:
        raise InputError(
            f"the predictions are shard {shard.index}/{shard.count} of a run; judge them "
            "without --shard, or with the run's",
            field="--shard",
        )
    if run_sample is None and spec is not None:
        raise InputError(
            "the predictions are a shard of a run without --limit: judge them without --limit",
            field="--limit",
        )
    return ShardSample.of(shard, ids, run_sample, total)


def benchmark_shard_sample(
    bench: ShardedBenchmark,
    data: Any,
    request: SampleSpec | QuestionSample | None,
    shard: Shard,
) -> ShardSample:
    """A benchmark with its own judge judges every question of its file (or `--limit`'s
    sample of them): shard I of those."""
    conversations = bench.conversations(data)
    questions = bench.questions(data, conversations)
    drawn = bench.draw_sample(request, [(q.question_id, q.category) for q in questions])
    judged = [q.question_id for q in questions if drawn is None or q.question_id in drawn.ids]
    ids = shard_question_ids(shard, conversations, questions, judged)
    return ShardSample.of(shard, ids, drawn, len(judged))


def records_shard_sample(
    bench: ShardedBenchmark,
    data: Any,
    records: Sequence[PredictionRecord],
    include_adversarial: bool,
    sample: QuestionSample | None,
    shard: Shard,
) -> ShardSample:
    """The generic judge's records (joined to the data file): shard I of those judged."""
    judged = [r.key for r in judged_records(list(records), include_adversarial)]
    if sample is not None:
        judged = [key for key in judged if key in sample.ids]
    conversations = bench.conversations(data)
    ids = shard_question_ids(shard, conversations, bench.questions(data, conversations), judged)
    return ShardSample.of(shard, ids, sample, len(judged))
