"""`judge --shard I/N` of LoCoMo's prediction records (joined to the dataset): shard I of the
questions its judge judges, split by whole conversations as `run --shard` splits them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.judge.from_records import judged_records
from locoscore.data.sample import QuestionSample
from locoscore.data.shard import Shard, ShardSample, shard_question_ids
from locoscore.judge.shard import ShardedBenchmark


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
