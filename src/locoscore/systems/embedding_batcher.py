"""One model, many callers: a thread that gathers what is waiting into batches.

A run asks for vectors from many places at once: the sessions of the conversations being
ingested, the questions in flight. Encoded call by call (a session's ~20 turns, a question
alone) a GPU idles between tiny batches, and a lock makes every caller wait its turn. Here
callers put their texts on one queue and wait on a future; a single worker thread takes
whatever is waiting, up to `batch_size` texts, encodes it in one batch, and hands each
caller its vectors. The batch is flushed when it is full or when the queue is momentarily
empty, so a lone caller never waits for company, and texts that arrive during an encode
make the next batch bigger.

The worker also loads the model, first thing, so `start` returns at once and the first
callers wait on the load (`ready`). Everything that touches the model runs on this one
thread: a Hugging Face tokenizer shared across threads can fail ("Already borrowed").
"""

from __future__ import annotations

import concurrent.futures
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import numpy as np

Model = TypeVar("Model")
# What the worker hands back per text: its vector and its length in the model's tokens.
Encoded = tuple[np.ndarray, int]


@dataclass(eq=False)  # hashed by identity: a batch's requests are deduplicated
class _Request:
    texts: list[str]
    future: concurrent.futures.Future[list[Encoded]] = field(
        default_factory=concurrent.futures.Future
    )
    results: list[Encoded | None] = field(default_factory=list)
    missing: int = 0

    def __post_init__(self) -> None:
        self.results = [None] * len(self.texts)
        self.missing = len(self.texts)


@dataclass
class BatchStats:
    """What the worker did: the batches it encoded, and when the model was busy."""

    batches: int = 0
    texts: int = 0
    largest: int = 0
    busy_s: float = 0.0  # inside the model's encode
    first_start: float | None = None  # time.perf_counter() of the first encode
    last_end: float | None = None
    load_s: float | None = None  # the model's load (None until loaded)

    def to_json(self) -> dict[str, Any]:
        return {
            "batches": self.batches,
            "texts": self.texts,
            "mean_batch": round(self.texts / self.batches, 1) if self.batches else None,
            "largest_batch": self.largest,
            "load_s": None if self.load_s is None else round(self.load_s, 2),
        }


_STOP = object()


class EncodeBatcher(Generic[Model]):
    """`load()` then `encode(model, texts)` on one worker thread, batches of `batch_size`."""

    def __init__(
        self, load: Callable[[], Model], encode: Callable[[Model, list[str]], list[Encoded]]
    ) -> None:
        self._load = load
        self._encode = encode
        self.batch_size = 1
        self.ready: concurrent.futures.Future[Model] = concurrent.futures.Future()
        self.stats = BatchStats()
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._stopped = False

    @property
    def stopped(self) -> bool:
        return self._stopped

    def start(self, batch_size: int) -> None:
        """Start the worker (it loads the model first); a second call does nothing."""
        if self._thread is not None:
            return
        if self._stopped:
            raise RuntimeError("the embedding worker was stopped (make a new one)")
        self.batch_size = batch_size
        self._thread = threading.Thread(target=self._run, name="locoscore-embedding", daemon=True)
        self._thread.start()

    def submit(self, texts: list[str]) -> concurrent.futures.Future[list[Encoded]]:
        """The vectors of `texts`, in order, once the worker has encoded them all (a failed
        batch fails every request it held a text of)."""
        request = _Request(list(texts))
        if not request.texts:
            request.future.set_result([])
            return request.future
        if self._thread is None:
            raise RuntimeError("the embedding worker is not started")
        for index in range(len(request.texts)):
            self._queue.put((request, index))
        return request.future

    def stop(self) -> None:
        """Let the worker finish what is queued, then end it."""
        self._stopped = True
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join()
            self._thread = None

    # -- the worker thread ----------------------------------------------------------------

    def _run(self) -> None:
        started = time.perf_counter()
        try:
            model = self._load()
        except BaseException as exc:  # handed to every caller, raised where they await
            self.ready.set_exception(exc)
            self._drain_failing(exc)
            return
        self.stats.load_s = time.perf_counter() - started
        self.ready.set_result(model)
        while True:
            batch, stop = self._gather()
            if batch:
                self._encode_batch(model, batch)
            if stop:
                return

    def _gather(self) -> tuple[list[tuple[_Request, int]], bool]:
        """Block for the first text, then take what is waiting, up to `batch_size`."""
        first = self._queue.get()
        if first is _STOP:
            return [], True
        batch = [first]
        while len(batch) < self.batch_size:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is _STOP:
                return batch, True
            batch.append(item)
        return batch, False

    def _encode_batch(self, model: Model, batch: list[tuple[_Request, int]]) -> None:
        # a caller that stopped waiting (cancelled) or already failed: its texts are skipped
        batch = [(request, index) for request, index in batch if not request.future.done()]
        if not batch:
            return
        texts = [request.texts[index] for request, index in batch]
        began = time.perf_counter()
        try:
            encoded = self._encode(model, texts)
        except Exception as exc:
            for request in dict.fromkeys(request for request, _ in batch):
                _settle(request.future, exception=exc)
            return
        ended = time.perf_counter()
        stats = self.stats
        stats.batches += 1
        stats.texts += len(texts)
        stats.largest = max(stats.largest, len(texts))
        stats.busy_s += ended - began
        stats.first_start = began if stats.first_start is None else stats.first_start
        stats.last_end = ended
        for (request, index), result in zip(batch, encoded, strict=True):
            if request.future.done():  # failed with an earlier batch
                continue
            request.results[index] = result
            request.missing -= 1
            if request.missing == 0:
                _settle(request.future, [r for r in request.results if r is not None])

    def _drain_failing(self, exc: BaseException) -> None:
        """After a failed load: every request, queued now or later, fails with its error."""
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            request, _ = item
            _settle(request.future, exception=exc)


def _settle(
    future: concurrent.futures.Future[list[Encoded]],
    result: list[Encoded] | None = None,
    exception: BaseException | None = None,
) -> None:
    """Hand a caller its result, unless it stopped waiting (cancelled) meanwhile."""
    try:
        if exception is not None:
            future.set_exception(exception)
        else:
            future.set_result(result or [])
    except concurrent.futures.InvalidStateError:
        pass  # cancelled, or failed with an earlier batch
