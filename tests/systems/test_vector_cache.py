"""The vector cache: keyed by backend as well as model, and files from before that upgraded."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from locoscore._io import sha256_text
from locoscore.systems.vector_cache import VectorCache, VectorSpace

OLD_SCHEMA = """
CREATE TABLE vectors (
    model TEXT NOT NULL,
    dimensions INTEGER NOT NULL,
    text_sha256 TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model, dimensions, text_sha256)
) WITHOUT ROWID;
"""


def test_the_same_model_name_under_two_backends_holds_two_vectors(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "v.sqlite")
    digest = sha256_text("hello")
    api, local = VectorSpace("api", "m"), VectorSpace("local", "m")
    cache.put_many(api, [(digest, np.array([1.0, 0.0], dtype=np.float32))])
    assert cache.get_many(local, [digest]) == {}
    cache.put_many(local, [(digest, np.array([0.0, 1.0, 0.0], dtype=np.float32))])
    assert cache.get_many(api, [digest])[digest].tolist() == [1.0, 0.0]
    assert cache.get_many(local, [digest])[digest].tolist() == [0.0, 1.0, 0.0]
    assert cache.get_many(VectorSpace("api", "m", 2), [digest]) == {}  # another size
    cache.close()


def test_a_file_from_before_backends_is_upgraded_its_vectors_kept_as_the_apis(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.sqlite"
    digest = sha256_text("hello")
    with sqlite3.connect(path) as conn:
        conn.executescript(OLD_SCHEMA)
        blob = np.array([0.5, 0.25], dtype="<f4").tobytes()
        conn.execute("INSERT INTO vectors VALUES (?, ?, ?, ?)", ("m", 0, digest, blob))
    conn.close()
    cache = VectorCache(path)
    assert cache.get_many(VectorSpace("api", "m"), [digest])[digest].tolist() == [0.5, 0.25]
    assert cache.get_many(VectorSpace("local", "m"), [digest]) == {}
    cache.close()
    again = VectorCache(path)  # opening an upgraded file changes nothing
    assert list(again.get_many(VectorSpace("api", "m"), [digest])) == [digest]
    tables = again.conn.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
    assert tables == [("vectors",)]
    again.close()
