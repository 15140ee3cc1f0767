"""Atomic file writes (a reader never sees a half-written output), and the durable SQLite
files that caches and resumable state live in."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from locoscore.errors import InputError

# Told of every file written here, once it is in place: (its path, the bytes written). The
# manifest of a results folder (`results.manifest`) listens while a command writes one;
# a module-level list, not a context variable, so that writes from worker threads count.
WriteListener = Callable[[Path, bytes], None]
_listeners: list[WriteListener] = []


@contextmanager
def listening(listener: WriteListener) -> Iterator[None]:
    """`listener` is told of every atomic write made while the block runs."""
    _listeners.append(listener)
    try:
        yield
    finally:
        _listeners.remove(listener)


def write_text_atomic(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp creates 0600 files; results are meant to be shared, so use the usual mode
        os.chmod(tmp, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    for listener in list(_listeners):
        listener(path, data)


def dumps_json(obj: Any) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_json_atomic(path: Path, obj: Any) -> None:
    write_text_atomic(path, dumps_json(obj))


def write_jsonl_atomic(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    lines = [json.dumps(row, ensure_ascii=False, allow_nan=False) for row in rows]
    write_text_atomic(path, "\n".join(lines) + ("\n" if lines else ""))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def read_json_object(
    path: Path, unreadable: str, not_object: str = "expected a JSON object"
) -> dict[str, Any]:
    """The JSON object in `path`, else one InputError naming the file: `unreadable` (a
    template given the reason) when it cannot be read or parsed, `not_object` when it holds
    something else."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(unreadable.format(exc), file=str(path)) from None
    if not isinstance(data, dict):
        raise InputError(not_object, file=str(path))
    return data


def sha256_text(text: str) -> str:
    """The sha256 of `text` as UTF-8, in hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def open_state_db(path: Path) -> sqlite3.Connection:
    """A SQLite file of durable state (a cache, a run's resume state), its folder made when
    missing: autocommit, waiting up to 30 s for another process's lock, in WAL mode with
    synchronous=NORMAL, so that a committed write survives kill -9 of the process."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn
