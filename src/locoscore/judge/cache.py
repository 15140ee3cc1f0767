"""Durable judge cache = resume. SQLite in WAL mode, one commit per finished call.

A key covers everything that can change a verdict: provider, endpoint (the normalised base
URL, or the provider's default API), model, protocol, prompt version, every sampling
parameter, the question's identity, text and category, the reference, the candidate text,
and the repeat index, so ten repeats are ten entries and a changed prompt or model never
hits a stale one. Only scored verdicts are stored: refusals, parse failures and transport
errors are not, so a rerun asks again. Each verdict also keeps the model the server said it
served and whether it was locoscore's fake provider: a pass whose live replies name another
served model asks again for the verdicts cached from the old one (see `judge.runner`).

Files written before endpoints were recorded gain the new columns on open; their verdicts
are kept but never served (their keys named no endpoint, so which server made them is
unknown, and no new key can match them).

The optional user-level cache is a second store of the same schema and keys, shared by every
output folder: the folder's store looks there for what it lacks, copies each hit in (the
folder stays self-contained and resumable) and writes every new verdict to both.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from locoscore._io import open_state_db, sha256_text

USER_CACHE_FILE = "judge_cache.sqlite"
_COLUMNS = (
    "key, question_key, run_index, score, explanation, method, raw_reply, "
    "input_tokens, output_tokens, latency_s, served_model, fake"
)
# Added after the first schema, at the end (ALTER TABLE appends): whole rows copy between
# an old file and a new one in the same column order.
_ADDED_COLUMNS = (
    ("endpoint", "TEXT NOT NULL DEFAULT ''"),
    ("served_model", "TEXT NOT NULL DEFAULT ''"),
    ("fake", "INTEGER NOT NULL DEFAULT 0"),
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS judgments (
    key TEXT PRIMARY KEY,
    question_key TEXT NOT NULL,
    run_index INTEGER NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    protocol TEXT NOT NULL,
    prompt_hash TEXT NOT NULL,
    params TEXT NOT NULL,
    score REAL NOT NULL,
    explanation TEXT NOT NULL,
    method TEXT NOT NULL,
    raw_reply TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    latency_s REAL NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS batches (
    batch_id TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    keys TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at REAL NOT NULL
);
"""
_MARKS = ",".join("?" * 19)  # every column of `judgments`


def user_cache_path() -> Path:
    """The user-level cache shared by all output folders (`locoscore judge --user-cache`)."""
    return Path(platformdirs.user_cache_dir("locoscore")) / USER_CACHE_FILE


@dataclass(frozen=True)
class JudgeIdentity:
    """Who judged, where and how: the part of a cache key (and of a stored verdict's row)
    that is the same for every question of a pass."""

    provider: str
    endpoint: str  # the normalised base URL, or the provider's default API
    model: str
    protocol: str
    prompt_hash: str
    params: dict[str, Any]  # every sampling parameter that can change a verdict


def cache_key(
    judge: JudgeIdentity,
    *,
    question_key: str,
    question: str,
    category: int,
    gold: str,
    candidate: str,
    run_index: int,
) -> str:
    identity = [
        judge.provider,
        judge.endpoint,
        judge.model,
        judge.protocol,
        judge.prompt_hash,
        sorted(judge.params.items()),
        question_key,
        question,
        category,  # the prompt carries the category's grading standard
        gold,
        candidate,
        run_index,
    ]
    return sha256_text(json.dumps(identity, ensure_ascii=False, separators=(",", ":"), default=str))


@dataclass(frozen=True)
class CachedVerdict:
    key: str
    question_key: str
    run_index: int
    score: float
    explanation: str
    method: str
    raw_reply: str
    input_tokens: int
    output_tokens: int
    latency_s: float
    served_model: str = ""  # what the server said it served ("" when it said nothing)
    fake: bool = False


def _verdict(row: Any) -> CachedVerdict:
    """A row of `_COLUMNS`."""
    key, question_key, run_index, score, explanation, method, raw, inp, out, latency = row[:10]
    return CachedVerdict(
        key, question_key, run_index, score, explanation, method, raw, inp, out, latency,
        served_model=row[10], fake=bool(row[11]),
    )  # fmt: skip


@dataclass(frozen=True)
class PendingBatch:
    batch_id: str
    provider: str
    model: str
    keys: list[str]


class JudgeStore:
    """The SQLite file: finished verdicts and submitted batches.

    With `shared` (the user-level cache), lookups fall back to it and new verdicts go to both;
    batches stay in this store only. `copy_shared_hits=False` reads without writing (dry run).
    """

    def __init__(
        self,
        path: Path,
        *,
        shared: JudgeStore | None = None,
        copy_shared_hits: bool = True,
    ) -> None:
        self.path = path
        self.shared = shared
        self.copy_shared_hits = copy_shared_hits
        self.shared_hits = 0  # verdicts found only in the shared store
        self.conn = open_state_db(path)  # a committed call survives kill -9 of the process
        self.conn.executescript(SCHEMA)
        have = {row[1] for row in self.conn.execute("PRAGMA table_info(judgments)")}
        for name, kind in _ADDED_COLUMNS:
            if name not in have:
                self.conn.execute(f"ALTER TABLE judgments ADD COLUMN {name} {kind}")

    def close(self) -> None:
        self.conn.close()
        if self.shared is not None:
            self.shared.close()

    def __enter__(self) -> JudgeStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _select_chunks(self, columns: str, keys: list[str]) -> Iterator[list[Any]]:
        """Rows for `keys`, 500 keys a query (SQLite caps the number of bound parameters)."""
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            yield self.conn.execute(
                f"SELECT {columns} FROM judgments WHERE key IN ({marks})", chunk
            ).fetchall()

    def get(self, key: str) -> CachedVerdict | None:
        return self.get_many([key]).get(key)

    def get_many(self, keys: list[str]) -> dict[str, CachedVerdict]:
        found: dict[str, CachedVerdict] = {}
        for rows in self._select_chunks(_COLUMNS, keys):
            for row in rows:
                found[row[0]] = _verdict(row)
        if self.shared is not None:
            rest = [k for k in keys if k not in found]
            more = self.shared.get_many(rest) if rest else {}
            if more and self.copy_shared_hits:
                self._copy_from(self.shared, list(more))
            self.shared_hits += len(more)
            found.update(more)
        return found

    def _copy_from(self, other: JudgeStore, keys: list[str]) -> None:
        """Whole rows (with their provider, model, prompt and params) from another store."""
        for rows in other._select_chunks("*", keys):
            self.conn.execute("BEGIN")  # one commit per chunk, not per row
            try:
                self.conn.executemany(
                    f"INSERT OR IGNORE INTO judgments VALUES ({_MARKS})",
                    rows,
                )
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def put(self, verdict: CachedVerdict, judge: JudgeIdentity) -> None:
        if verdict.score < 0:
            raise ValueError("only scored verdicts are cached")
        self.conn.execute(
            f"INSERT OR REPLACE INTO judgments VALUES ({_MARKS})",
            (
                verdict.key,
                verdict.question_key,
                verdict.run_index,
                judge.provider,
                judge.model,
                judge.protocol,
                judge.prompt_hash,
                json.dumps(judge.params, sort_keys=True),
                verdict.score,
                verdict.explanation,
                verdict.method,
                verdict.raw_reply,
                verdict.input_tokens,
                verdict.output_tokens,
                verdict.latency_s,
                time.time(),
                judge.endpoint,
                verdict.served_model,
                int(verdict.fake),
            ),
        )  # autocommit: each finished call is durable at once
        if self.shared is not None:
            self.shared.put(verdict, judge)

    def count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM judgments").fetchone()[0])

    # ------------------------------------------------------------------ batches

    def add_batch(self, batch_id: str, provider: str, model: str, keys: list[str]) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO batches VALUES (?,?,?,?,?,?)",
            (batch_id, provider, model, json.dumps(keys), "pending", time.time()),
        )

    def pending_batches(self, provider: str, model: str) -> list[PendingBatch]:
        rows = self.conn.execute(
            "SELECT batch_id, provider, model, keys FROM batches "
            "WHERE state = 'pending' AND provider = ? AND model = ? ORDER BY created_at",
            (provider, model),
        ).fetchall()
        return [PendingBatch(r[0], r[1], r[2], json.loads(r[3])) for r in rows]

    def finish_batch(self, batch_id: str, state: str = "ingested") -> None:
        self.conn.execute("UPDATE batches SET state = ? WHERE batch_id = ?", (state, batch_id))
