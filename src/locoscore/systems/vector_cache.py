"""Embedding vectors on disk, so a rerun embeds nothing twice.

SQLite in WAL mode (several runs may share one file), keyed by (model, dimensions, sha256 of
the text): the vector of a text depends on nothing else a request sends. Vectors are stored
as little-endian float32 blobs, the precision the APIs return.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import numpy as np

SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    model TEXT NOT NULL,
    dimensions INTEGER NOT NULL,
    text_sha256 TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model, dimensions, text_sha256)
) WITHOUT ROWID;
"""
_FLOAT32 = np.dtype("<f4")
# SQLite caps the number of bound parameters per statement.
_CHUNK = 500


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class VectorCache:
    """`dimensions` None (the model's own size) is stored as 0."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.executescript(SCHEMA)

    def get_many(
        self, model: str, dimensions: int | None, digests: list[str]
    ) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(digests), _CHUNK):
            chunk = digests[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                "SELECT text_sha256, vector FROM vectors WHERE model = ? AND dimensions = ?"
                f" AND text_sha256 IN ({marks})",
                [model, dimensions or 0, *chunk],
            ).fetchall()
            for digest, blob in rows:
                found[digest] = np.frombuffer(blob, dtype=_FLOAT32)
        return found

    def put_many(
        self, model: str, dimensions: int | None, vectors: Iterable[tuple[str, np.ndarray]]
    ) -> None:
        rows = [
            (model, dimensions or 0, digest, np.asarray(vector, dtype=_FLOAT32).tobytes())
            for digest, vector in vectors
        ]
        with self.conn:  # one transaction per batch
            self.conn.execute("BEGIN")
            self.conn.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?, ?, ?)", rows)

    def close(self) -> None:
        self.conn.close()
