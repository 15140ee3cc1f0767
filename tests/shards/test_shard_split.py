"""`--shard I/N`: the split is by whole conversations, balanced by turns, and the same on
every machine (no `hash()`, no dependence on the order the conversations come in)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from locoscore.benchmarks import get_benchmark
from locoscore.data.sample import QuestionSample, SampleSpec, with_sample
from locoscore.data.shard import (
    Shard,
    ShardSample,
    assign,
    shard_of,
    with_shard,
    without_shard,
)
from locoscore.errors import InputError

LOCOMO = Path("/work/shared/data/locomo10.json")


def test_longest_first_to_the_lightest_shard_hand_computed() -> None:
    # sizes 9, 7, 6, 5, 2 over 2 shards: 9->0, 7->1, 6->1 (7<9), 5->0 (9<13), 2->1 (13<14)
    sizes = [("a", 9), ("b", 7), ("c", 6), ("d", 5), ("e", 2)]
    assert assign(sizes, 2) == {"a": 0, "b": 1, "c": 1, "d": 0, "e": 1}
    # the order given does not count
    assert assign(list(reversed(sizes)), 2) == assign(sizes, 2)
    # equal sizes: the sha256 of the id breaks the tie, the same everywhere
    assert assign([("x", 1), ("y", 1), ("z", 1)], 3) == assign([("z", 1), ("y", 1), ("x", 1)], 3)


def test_every_conversation_in_exactly_one_shard_and_balanced_on_locomo() -> None:
    bench = get_benchmark("locomo")
    conversations = bench.conversations(bench.load(LOCOMO))
    sizes = [(c.conversation_id, c.turn_count) for c in conversations]
    for count in (2, 3, 4):
        parts = [Shard(i, count).keep(sizes) for i in range(count)]
        assert sorted(cid for part in parts for cid in part) == sorted(c for c, _ in sizes)
        loads = [sum(n for cid, n in sizes if cid in part) for part in parts]
        # LPT: no shard is more than the largest conversation above the lightest
        assert max(loads) - min(loads) <= max(n for _, n in sizes)


def test_the_split_does_not_depend_on_the_hash_seed() -> None:
    code = (
        "import json;from locoscore.data.shard import assign;"
        "print(json.dumps(assign([(f'c{i}', i % 5) for i in range(40)], 3), sort_keys=True))"
    )
    outputs = set()
    for seed in ("1", "2", "random"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert json.loads(outputs.pop()) == assign([(f"c{i}", i % 5) for i in range(40)], 3)


@pytest.mark.parametrize("text", ["3/3", "1", "a/b", "-1/2", "0/0", "1/2/3"])
def test_bad_shard_is_refused(text: str) -> None:
    with pytest.raises(InputError, match="--shard"):
        Shard.parse(text)


def test_more_shards_than_conversations_is_refused() -> None:
    with pytest.raises(InputError, match="2 conversation\\(s\\) cannot fill 3 shards"):
        Shard(0, 3).keep([("a", 1), ("b", 2)])


def test_signature_part_before_version_and_removable() -> None:
    base = "run:bm25|top_k:10|version:0.1.0"
    sample = SampleSpec(5).draw([str(i) for i in range(10)], item_id=str, stratum=lambda _: 1)
    signed = with_shard(with_sample(base, sample), Shard(1, 3))
    assert signed == "run:bm25|top_k:10|sample:5/10@seed0:strat-cat|shard:1/3|version:0.1.0"
    assert shard_of(signed) == "shard:1/3"
    assert without_shard(signed) == with_sample(base, sample)


def test_a_judge_shard_signs_the_whole_sample_then_the_shard() -> None:
    whole = SampleSpec(4).draw([str(i) for i in range(10)], item_id=str, stratum=lambda _: 1)
    part = ShardSample.of(Shard(0, 2), sorted(whole.ids)[:2], whole, whole.size)
    assert isinstance(part, QuestionSample)
    assert part.signature == "sample:4/10@seed0:strat-cat|shard:0/2"
    assert part.size == 2 and part.ids < whole.ids
    plain = ShardSample.of(Shard(1, 2), ["a", "b"], None, 5)
    assert plain.signature == "shard:1/2"
    assert plain.describe() == "shard 1/2 (2 of the 5 questions)"
    assert plain.to_json()["population"] == 5
