"""The batcher behind local embedding: one worker gathers what callers are waiting with.

A stand-in model (no torch): a text's "vector" is [its length, its first character code],
its token count its word count, so every result can be checked by hand.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading

import numpy as np
import pytest

from locoscore.errors import InputError
from locoscore.systems.embedding_batcher import EncodeBatcher, Encoded


class StandIn:
    """Records every batch; the first batch can be held until the test lets it go."""

    def __init__(self, *, hold_first: bool = False, fail_on: str | None = None) -> None:
        self.batches: list[list[str]] = []
        self.hold = threading.Event()
        if not hold_first:
            self.hold.set()
        self.entered = threading.Event()
        self.fail_on = fail_on

    def load(self) -> str:
        return "model"

    def encode(self, model: str, texts: list[str]) -> list[Encoded]:
        assert model == "model"
        self.batches.append(list(texts))
        self.entered.set()
        self.hold.wait(10)
        if self.fail_on is not None and self.fail_on in texts:
            raise RuntimeError(f"cannot encode {self.fail_on!r}")
        return [(np.array([len(t), ord(t[0])], dtype=np.float32), len(t.split())) for t in texts]


def expected(texts: list[str]) -> list[tuple[list[float], int]]:
    return [([float(len(t)), float(ord(t[0]))], len(t.split())) for t in texts]


def plain(results: list[Encoded]) -> list[tuple[list[float], int]]:
    return [(vector.tolist(), tokens) for vector, tokens in results]


def test_callers_waiting_during_an_encode_share_the_next_batches() -> None:
    model = StandIn(hold_first=True)
    batcher: EncodeBatcher[str] = EncodeBatcher(model.load, model.encode)
    batcher.start(batch_size=64)
    first = batcher.submit(["alone"])
    assert model.entered.wait(10)  # the worker is inside the first encode, holding it
    sessions = [[f"s{i} turn {j}" for j in range(50)] for i in range(3)]
    waiting = [batcher.submit(texts) for texts in sessions]
    model.hold.set()
    assert plain(first.result(10)) == expected(["alone"])
    for future, texts in zip(waiting, sessions, strict=True):
        assert plain(future.result(10)) == expected(texts)  # each caller: its own, in order
    # 150 texts queued while the first encode ran: full batches, then the rest
    assert [len(b) for b in model.batches] == [1, 64, 64, 22]
    assert model.batches[1] == sessions[0] + sessions[1][:14]  # first come, first encoded
    batcher.stop()
    stats = batcher.stats.to_json()
    assert stats.pop("load_s") is not None
    assert stats == {"batches": 4, "texts": 151, "mean_batch": 37.8, "largest_batch": 64}


def test_a_lone_caller_is_encoded_at_once_without_waiting_for_company() -> None:
    model = StandIn()
    batcher: EncodeBatcher[str] = EncodeBatcher(model.load, model.encode)
    batcher.start(batch_size=128)
    for text in ("one", "two words", "three more words"):
        assert plain(batcher.submit([text]).result(10)) == expected([text])
    assert model.batches == [["one"], ["two words"], ["three more words"]]
    assert batcher.submit([]).result(1) == []  # nothing to encode: no batch
    batcher.stop()
    assert batcher.stats.batches == 3


def test_a_failed_batch_fails_the_callers_it_held_and_the_worker_goes_on() -> None:
    model = StandIn(hold_first=True, fail_on="bad")
    batcher: EncodeBatcher[str] = EncodeBatcher(model.load, model.encode)
    batcher.start(batch_size=4)
    warm = batcher.submit(["warm"])
    assert model.entered.wait(10)
    spans = batcher.submit(["a", "b", "c", "d", "e"])  # batches [a b c d] and [e bad ...]
    broken = batcher.submit(["bad"])
    after = batcher.submit(["f", "g"])
    model.hold.set()
    assert plain(warm.result(10)) == expected(["warm"])
    with pytest.raises(RuntimeError, match="cannot encode 'bad'"):
        spans.result(10)  # its "e" shared the failed batch
    with pytest.raises(RuntimeError, match="cannot encode 'bad'"):
        broken.result(10)
    assert model.batches[1:] == [["a", "b", "c", "d"], ["e", "bad", "f", "g"]]
    assert after.exception(10) is not None  # it shared the failed batch too
    assert plain(batcher.submit(["h"]).result(10)) == expected(["h"])  # the worker lives on
    batcher.stop()


def test_a_failed_load_fails_every_caller_with_its_error() -> None:
    def load() -> str:
        raise InputError("--system-option model=nowhere: cannot load")

    batcher: EncodeBatcher[str] = EncodeBatcher(load, StandIn().encode)
    batcher.start(batch_size=8)
    with pytest.raises(InputError, match="model=nowhere"):
        batcher.ready.result(10)
    with pytest.raises(InputError, match="model=nowhere"):
        batcher.submit(["x"]).result(10)
    batcher.stop()
    assert batcher.stats.load_s is None


def test_a_caller_that_stops_waiting_does_not_stop_the_worker() -> None:
    model = StandIn(hold_first=True)
    batcher: EncodeBatcher[str] = EncodeBatcher(model.load, model.encode)
    batcher.start(batch_size=8)

    async def go() -> list[Encoded]:
        first = asyncio.wrap_future(batcher.submit(["first"]))
        await asyncio.to_thread(model.entered.wait, 10)
        gone = asyncio.ensure_future(asyncio.wrap_future(batcher.submit(["gone"])))
        await asyncio.sleep(0)
        gone.cancel()  # e.g. a conversation reset while its session was queued
        await asyncio.sleep(0)  # the cancellation reaches the worker's future
        model.hold.set()
        await first
        return await asyncio.wrap_future(batcher.submit(["next"]))

    assert plain(asyncio.run(go())) == expected(["next"])
    assert model.batches == [["first"], ["next"]]  # the abandoned text was never encoded
    batcher.stop()


def test_stop_finishes_what_is_queued_and_a_stopped_worker_refuses_to_restart() -> None:
    model = StandIn(hold_first=True)
    batcher: EncodeBatcher[str] = EncodeBatcher(model.load, model.encode)
    batcher.start(batch_size=8)
    futures = [batcher.submit([f"text {i}"]) for i in range(3)]
    assert model.entered.wait(10)
    model.hold.set()
    batcher.stop()
    assert all(isinstance(f.result(0), list) for f in futures)
    with pytest.raises(RuntimeError, match="stopped"):
        batcher.start(batch_size=8)
    assert isinstance(batcher.ready, concurrent.futures.Future)


def test_start_returns_while_the_model_loads_and_the_first_callers_wait_for_it() -> None:
    model = StandIn()
    loading = threading.Event()

    def slow_load() -> str:
        loading.wait(10)  # a model still loading (torch imported, weights read)
        return model.load()

    batcher: EncodeBatcher[str] = EncodeBatcher(slow_load, model.encode)
    batcher.start(batch_size=8)  # returns at once
    early = [batcher.submit([text]) for text in ("first", "second")]
    assert not batcher.ready.done() and not any(f.done() for f in early)
    loading.set()
    assert batcher.ready.result(10) == "model"
    assert [plain(f.result(10)) for f in early] == [expected(["first"]), expected(["second"])]
    assert model.batches == [["first", "second"]]  # queued during the load: one batch
    batcher.stop()
