"""`--limit N --seed S`: which questions a sample holds, and how many of each category."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from locoscore.data.sample import (
    QuestionSample,
    SampleSpec,
    judged_sample,
    largest_remainder,
    sample_spec,
    with_sample,
    without_sample,
)
from locoscore.errors import InputError

# LoCoMo's question counts per category id (the README's), 1,986 in all.
LOCOMO_COUNTS = {1: 282, 2: 321, 3: 96, 4: 841, 5: 446}


def _items(counts: dict[int, int]) -> list[tuple[str, int]]:
    """(question id, category): conv-i#j ids spread over ten conversations."""
    items = []
    n = 0
    for category, count in counts.items():
        for _ in range(count):
            items.append((f"conv-{n % 10}#{n // 10}", category))
            n += 1
    return items


def _draw(items: list[tuple[str, int]], spec: SampleSpec) -> frozenset[str]:
    return spec.draw(items, item_id=lambda i: i[0], stratum=lambda i: i[1]).ids


def test_the_same_seed_draws_the_same_ids_whatever_the_input_order() -> None:
    items = _items(LOCOMO_COUNTS)
    spec = SampleSpec(50, seed=7)
    shuffled = items[:]
    random.Random(1).shuffle(shuffled)
    assert _draw(items, spec) == _draw(shuffled, spec) == _draw(items[::-1], spec)
    assert len(_draw(items, spec)) == 50


def test_another_seed_draws_other_ids() -> None:
    items = _items(LOCOMO_COUNTS)
    a, b = _draw(items, SampleSpec(50, seed=0)), _draw(items, SampleSpec(50, seed=1))
    assert a != b
    assert len(a & b) < 25  # two independent 50-of-1986 draws share few questions


def test_the_draw_does_not_depend_on_pythons_hash_seed() -> None:
    code = (
        "import json,sys; from locoscore.data.sample import SampleSpec; "
        "items=json.load(sys.stdin); "
        "s=SampleSpec(30, seed=3).draw(items, item_id=lambda i: i[0], stratum=lambda i: i[1]); "
        "print(json.dumps(sorted(s.ids)))"
    )
    items = _items(LOCOMO_COUNTS)
    drawn = []
    for hash_seed in ("1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run(
            [sys.executable, "-c", code],
            input=json.dumps(items),
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        drawn.append(json.loads(out.stdout))
    assert drawn[0] == drawn[1] == sorted(_draw(items, SampleSpec(30, seed=3)))


def test_proportional_counts_on_locomo_by_hand() -> None:
    # 50 x size / 1986: 7.0997, 8.0816, 2.4169, 21.1732, 11.2286 -> floors 7, 8, 2, 21, 11
    # (49); the one left goes to the largest remainder, open-domain's 0.4169.
    sample = SampleSpec(50).draw(
        _items(LOCOMO_COUNTS), item_id=lambda i: i[0], stratum=lambda i: i[1]
    )
    counts = {k: v["sample"] for k, v in sample.strata.items()}
    assert counts == {"1": 7, "2": 8, "3": 3, "4": 21, "5": 11}
    assert sample.population == 1986 and sample.size == 50
    assert sample.signature == "sample:50/1986@seed0:strat-cat"


def test_proportional_counts_without_adversarial_by_hand() -> None:
    # 20 x size / 1540: 3.662, 4.169, 1.247, 10.922 -> floors 3, 4, 1, 10 (18); the two
    # left go to single-hop (0.922) and multi-hop (0.662).
    sizes = {c: n for c, n in LOCOMO_COUNTS.items() if c != 5}
    assert largest_remainder(dict(sizes), 20) == {1: 4, 2: 4, 3: 1, 4: 11}


def test_remainder_ties_go_to_the_larger_stratum_then_the_smaller_key() -> None:
    assert largest_remainder({"b": 5, "a": 5}, 3) == {"a": 2, "b": 1}
    # 4 x 6/10 = 2.4 and 4 x 4/10 = 1.6 -> 2 + 1, the leftover to b (0.6 > 0.4)
    assert largest_remainder({"a": 6, "b": 4}, 4) == {"a": 2, "b": 2}
    assert largest_remainder({"a": 6, "b": 4}, 50) == {"a": 6, "b": 4}  # all of it


def test_n_per_category_takes_all_of_a_smaller_category() -> None:
    sample = SampleSpec(100, per="stratum", seed=2).draw(
        _items(LOCOMO_COUNTS), item_id=lambda i: i[0], stratum=lambda i: i[1]
    )
    counts = {k: v["sample"] for k, v in sample.strata.items()}
    assert counts == {"1": 100, "2": 100, "3": 96, "4": 100, "5": 100}
    assert sample.signature == "sample:496/1986@seed2:100-per-cat"


def test_a_larger_limit_keeps_a_categorys_earlier_picks() -> None:
    items = [(f"q{i}", 1) for i in range(200)]
    small, large = _draw(items, SampleSpec(10)), _draw(items, SampleSpec(40))
    assert small < large


def test_the_json_names_the_sample_and_every_question_id() -> None:
    items = [("conv-1#10", 1), ("conv-1#2", 1), ("conv-2#1", 2), ("conv-2#3", 2)]
    sample = SampleSpec(4).draw(items, item_id=lambda i: i[0], stratum=lambda i: i[1])
    doc = sample.to_json()
    assert doc["question_ids"] == ["conv-1#2", "conv-1#10", "conv-2#1", "conv-2#3"]
    assert doc["by_stratum"] == {
        "1": {"population": 2, "sample": 2},
        "2": {"population": 2, "sample": 2},
    }
    assert (doc["seed"], doc["per"], doc["size"], doc["population"]) == (0, "total", 4, 4)
    assert sample.keep(items[::-1], lambda i: i[0]) == items[::-1]


def test_signatures_gain_and_lose_the_sample_component() -> None:
    sample = SampleSpec(2).draw([("a", 1), ("b", 1), ("c", 1)], item_id=str, stratum=len)
    assert sample.signature == "sample:2/3@seed0:strat-cat"
    signed = with_sample("judge:binary|runs:3|version:0.1.0", sample)
    assert signed == "judge:binary|runs:3|sample:2/3@seed0:strat-cat|version:0.1.0"
    assert without_sample(signed) == "judge:binary|runs:3|version:0.1.0"
    assert with_sample("judge:binary", None) == "judge:binary"


def test_the_cli_options_are_checked() -> None:
    assert sample_spec(None, None, None) is None
    assert sample_spec(5, "category", 3) == SampleSpec(5, "stratum", 3)
    assert sample_spec(5, None, None) == SampleSpec(5, "total", 0)
    for args, field in (
        ((None, "total", None), "--limit-per"),
        ((None, None, 1), "--seed"),
        ((5, "conversation", None), "--limit-per"),
        ((0, None, None), "--limit"),
    ):
        with pytest.raises(InputError) as error:
            sample_spec(*args)
        assert error.value.field == field


def test_duplicate_ids_cannot_be_sampled(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="share an id"):
        SampleSpec(1).draw([("a", 1), ("a", 2)], item_id=lambda i: i[0], stratum=lambda i: i[1])


@pytest.mark.parametrize(
    ("name", "stratum", "first"),
    [("locomo", "strat-cat", "1"), ("longmemeval", "strat-type", "single-session-user"),
     ("beam", "strat-ability", "abstention")],
)  # fmt: skip
def test_each_benchmark_draws_by_its_own_types_and_a_run_sample_reads_back(
    name: str, stratum: str, first: str
) -> None:
    from locoscore.benchmarks import get_benchmark

    bench = get_benchmark(name)
    ids = bench.type_order
    questions = [(f"q{n}", ids[n % len(ids)]) for n in range(6 * len(ids))]
    drawn = bench.draw_sample(SampleSpec(len(ids), seed=4), questions)
    assert drawn is not None and drawn.signature.endswith(f"@seed4:{stratum}")
    # one per type: 6 of each, the limit split evenly; the strata named by the type's key
    assert drawn.strata[first] == {"population": 6, "sample": 1}
    assert sorted(int(q[1:]) % len(ids) for q in drawn.ids) == list(range(len(ids)))
    back = QuestionSample.from_json(json.loads(json.dumps(drawn.to_json())))
    assert back == drawn and bench.draw_sample(back, []) is back
    assert judged_sample(SampleSpec(len(ids), seed=4), back) is back
    assert judged_sample(None, back) is back and judged_sample(None, None) is None
    with pytest.raises(InputError, match="a run's sample") as error:
        judged_sample(SampleSpec(len(ids), seed=5), back)
    assert error.value.field == "--limit"
