"""Embedding vectors on disk, so a rerun embeds nothing twice.

SQLite in WAL mode (several runs may share one file), keyed by (backend, model, dimensions,
sha256 of the text): the vector of a text depends on nothing else. `backend` keeps vectors
of an API model and of an in-process one apart even under the same name; for the local
backend `model` is a fingerprint of the loaded weights, so a model changed in place never
reuses its predecessor's vectors. Vectors are little-endian float32 blobs, the precision
the APIs return.

Files written before the backend was part of the key (table `vectors` without a `backend`
column) are upgraded in place: their vectors all came from the API.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from locoscore._io import open_state_db

SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    dimensions INTEGER NOT NULL,
    text_sha256 TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (backend, model, dimensions, text_sha256)
) WITHOUT ROWID;
"""
_UPGRADE = """
ALTER TABLE vectors RENAME TO vectors_before_backend;
{schema}
INSERT INTO vectors SELECT 'api', model, dimensions, text_sha256, vector
    FROM vectors_before_backend;
DROP TABLE vectors_before_backend;
"""
_FLOAT32 = np.dtype("<f4")
# SQLite caps the number of bound parameters per statement.
_CHUNK = 500


@dataclass(frozen=True)
class VectorSpace:
    """Which vectors are comparable: one backend's model at one size (None: the model's
    own size, stored as 0)."""

    backend: str
    model: str
    dimensions: int | None = None

    def key(self) -> list[str | int]:
        return [self.backend, self.model, self.dimensions or 0]


class VectorCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn = open_state_db(path)
        columns = {row[1] for row in self.conn.execute("PRAGMA table_info(vectors)")}
        if columns and "backend" not in columns:
            self.conn.executescript(f"BEGIN;{_UPGRADE.format(schema=SCHEMA)}COMMIT;")
        self.conn.executescript(SCHEMA)

    def get_many(self, space: VectorSpace, digests: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(digests), _CHUNK):
            chunk = digests[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(
                "SELECT text_sha256, vector FROM vectors WHERE backend = ? AND model = ?"
                f" AND dimensions = ? AND text_sha256 IN ({marks})",
                [*space.key(), *chunk],
            ).fetchall()
            for digest, blob in rows:
                found[digest] = np.frombuffer(blob, dtype=_FLOAT32)
        return found

    def put_many(self, space: VectorSpace, vectors: Iterable[tuple[str, np.ndarray]]) -> None:
        rows = [
            (*space.key(), digest, np.asarray(vector, dtype=_FLOAT32).tobytes())
            for digest, vector in vectors
        ]
        with self.conn:  # one transaction per batch
            self.conn.execute("BEGIN")
            self.conn.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?, ?, ?, ?)", rows)

    def close(self) -> None:
        self.conn.close()
