"""`ledger.append_attempts`: a shard's attempts become later attempts of the same jobs in the
merged ledger, every column the ledger owns copied (the cache columns only where both
ledgers have them: an older state file has none)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from locoscore.llm.ledger import COLUMNS, SCHEMA, Ledger, Spend, append_attempts


def _ledger(path: Path, job: str, spends: list[Spend]) -> None:
    conn = sqlite3.connect(str(path), isolation_level=None)
    conn.executescript(SCHEMA)
    for spend in spends:
        Ledger(conn, job).record(spend)  # each Ledger is the next attempt of the job
    conn.close()


def _rows(conn: sqlite3.Connection) -> list[tuple]:
    return conn.execute(
        "SELECT job, attempt, requests, input_tokens, cache_read_tokens FROM attempts "
        "ORDER BY job, attempt"
    ).fetchall()


def test_shard_attempts_follow_the_main_ledgers(tmp_path: Path) -> None:
    main, shard = tmp_path / "main.sqlite", tmp_path / "shard.sqlite"
    _ledger(main, "answers", [Spend(2, 2, 10, 1, 0.5, cache_read_tokens=4)] * 2)
    _ledger(shard, "answers", [Spend(3, 3, 30, 3, 1.0, cache_read_tokens=7)])
    _ledger(shard, "ingest", [Spend(1, 1, 5, 0, None)])
    conn = sqlite3.connect(str(main), isolation_level=None)
    conn.execute("ATTACH DATABASE ? AS shard", (str(shard),))
    append_attempts(conn, "shard")
    assert _rows(conn) == [
        ("answers", 1, 2, 10, 4),
        ("answers", 2, 2, 10, 4),
        ("answers", 3, 3, 30, 7),  # after main's two attempts
        ("ingest", 1, 1, 5, 0),
    ]
    assert [r[1] for r in conn.execute("PRAGMA table_info(attempts)")] == list(COLUMNS)


def test_an_older_ledger_without_cache_columns_still_merges(tmp_path: Path) -> None:
    main, shard = tmp_path / "main.sqlite", tmp_path / "old.sqlite"
    _ledger(main, "answers", [Spend(2, 2, 10, 1, 0.5, cache_read_tokens=4)])
    old = sqlite3.connect(str(shard), isolation_level=None)
    old.executescript(SCHEMA)  # the schema before the cache columns were added
    old.execute("INSERT INTO attempts VALUES ('answers', 1, 0.0, 5, 5, 50, 5, 2.0)")
    old.close()
    conn = sqlite3.connect(str(main), isolation_level=None)
    conn.execute("ATTACH DATABASE ? AS shard", (str(shard),))
    append_attempts(conn, "shard")
    assert _rows(conn) == [("answers", 1, 2, 10, 4), ("answers", 2, 5, 50, 0)]
