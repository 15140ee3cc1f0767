"""What each attempt of a job paid, kept in the job's own SQLite state (the judge cache, the
run state), so an interrupted and resumed job reports the whole job: the calls and cost of
this attempt, those of earlier attempts, and what was served from the cache. A finished job
rerun then says "0 made now, 120 by 1 earlier attempt", never just "0 calls, $0".

One row per (job, attempt), rewritten with the attempt's running totals after every
finished call (autocommit, like the verdicts and answers beside it), so even an attempt
killed with SIGKILL is counted up to its last committed call.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS attempts (
    job TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    started_at REAL NOT NULL,
    requests INTEGER NOT NULL,
    results INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost_usd REAL,
    PRIMARY KEY (job, attempt)
);
"""
# Added later: a state file from before gains them on open (0: nothing was cached then).
_CACHE_COLUMNS = ("cache_read_tokens", "cache_write_tokens")
# A row's columns, in the order `record` writes them.
COLUMNS = (
    "job",
    "attempt",
    "started_at",
    "requests",
    "results",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    *_CACHE_COLUMNS,
)


@dataclass(frozen=True)
class Spend:
    """Calls and their cost. `requests`: HTTP requests sent (retries included); `results`:
    what came back (a judge request with n > 1 returns several verdicts); `cost_usd` None:
    some call had no price."""

    requests: int = 0
    results: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    attempts: int = 0  # the attempts summed (0 for one attempt's own figures)
    # Of input_tokens, those read from / written to the provider's prompt cache.
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Spend) -> Spend:
        cost = None
        if self.cost_usd is not None and other.cost_usd is not None:
            cost = self.cost_usd + other.cost_usd
        return Spend(
            self.requests + other.requests,
            self.results + other.results,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            cost,
            self.attempts + other.attempts,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    def to_json(self, results_name: str = "results") -> dict[str, Any]:
        return {
            "requests": self.requests,
            results_name: self.results,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
            # input_tokens split (uncached, read from and written to the prompt cache) where
            # a cache took part: sections of calls no cache serves keep their shape
            **(
                tokens_apart(self.input_tokens, self.cache_read_tokens, self.cache_write_tokens)
                if self.cache_read_tokens or self.cache_write_tokens
                else {}
            ),
        }


def tokens_apart(input_tokens: int, cache_read: int, cache_write: int) -> dict[str, int]:
    return {
        "uncached_input_tokens": input_tokens - cache_read - cache_write,
        "cache_read_tokens": cache_read,
        "cache_write_tokens": cache_write,
    }


class Ledger:
    """This attempt of `job` in the SQLite file behind `conn`; earlier attempts are read
    once, when it opens."""

    def __init__(self, conn: sqlite3.Connection, job: str) -> None:
        self.conn = conn
        self.job = job
        conn.executescript(SCHEMA)
        have = {row[1] for row in conn.execute("PRAGMA table_info(attempts)")}
        for name in _CACHE_COLUMNS:
            if name not in have:
                conn.execute(f"ALTER TABLE attempts ADD COLUMN {name} INTEGER NOT NULL DEFAULT 0")
        rows = conn.execute(
            "SELECT attempt, requests, results, input_tokens, output_tokens, cost_usd, "
            "cache_read_tokens, cache_write_tokens FROM attempts WHERE job = ?",
            (job,),
        ).fetchall()
        self.attempt = 1 + max((row[0] for row in rows), default=0)
        self.earlier = sum(
            (
                Spend(
                    row[1],
                    row[2],
                    row[3],
                    row[4],
                    row[5],
                    attempts=1,
                    cache_read_tokens=row[6],
                    cache_write_tokens=row[7],
                )
                for row in rows
            ),
            Spend(),
        )
        self.started_at = time.time()

    def record(self, spend: Spend) -> None:
        """This attempt's running totals (an attempt that sent nothing leaves no row)."""
        if spend.requests == 0:
            return
        self.conn.execute(
            f"INSERT OR REPLACE INTO attempts ({', '.join(COLUMNS)}) "
            f"VALUES ({', '.join('?' * len(COLUMNS))})",
            (
                self.job,
                self.attempt,
                self.started_at,
                spend.requests,
                spend.results,
                spend.input_tokens,
                spend.output_tokens,
                spend.cost_usd,
                spend.cache_read_tokens,
                spend.cache_write_tokens,
            ),
        )


def append_attempts(conn: sqlite3.Connection, source: str) -> None:
    """The attempts of the attached database `source` appended to `main`'s as later
    attempts of the same jobs (renumbered after main's own): a merge of shards counts every
    shard's attempts. The columns added later are copied where both ledgers have them."""

    def columns(db: str) -> set[str]:
        return {r[1] for r in conn.execute(f"PRAGMA {db}.table_info(attempts)")}

    shared = columns("main") & columns(source)
    copied = [c for c in COLUMNS if c in shared]
    renumbered = (
        "(SELECT COALESCE(MAX(attempt), 0) FROM main.attempts m WHERE m.job = a.job) + a.attempt"
    )
    values = ", ".join(renumbered if c == "attempt" else f"a.{c}" for c in copied)
    conn.execute(
        f"INSERT INTO main.attempts ({', '.join(copied)}) SELECT {values} "
        f"FROM {source}.attempts a ORDER BY a.attempt"
    )


def attempts_json(now: Spend, earlier: Spend, results_name: str = "results") -> dict[str, Any]:
    """This attempt's calls and the earlier attempts', for a summary beside the totals."""
    return {
        "this_attempt": now.to_json(results_name),
        "earlier_attempts": {"attempts": earlier.attempts, **earlier.to_json(results_name)},
    }
