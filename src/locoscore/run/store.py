"""`DIR/run_state.sqlite`: the run's durable state, so a killed run resumes where it stopped.

Two tables, each row committed the moment it is final (WAL; a commit survives kill -9):
- `answers`: the answer cache. The key hashes everything that changes an answer (provider,
  endpoint, model, every sampling parameter, max tokens, and the prompt text itself, which
  holds the question and the retrieved context), so a changed retrieval never hits a stale
  answer. Each row keeps the model the server said it served and the fake provider's mark.
  A state file from before endpoints were keyed gains those columns on open; its answers
  are never served again (their keys named no endpoint).
- `questions`: each finished question's whole prediction line, and who made its answer
  (served model, fake mark); a rerun keeps the lines without an error and redoes the
  others, and signs what made the kept answers as a pass that made them would.
- `ingested`: per-conversation ingestion measurements of the latest ingestion.
- `meta`: the signature of the run the state belongs to (written before any work, so a
  rerun with other settings after a crash is refused, not mixed in).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore._io import open_state_db, sha256_text
from locoscore.llm.endpoint import Served

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    answer TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    latency_s REAL NOT NULL,
    created_at REAL NOT NULL,
    served_model TEXT NOT NULL DEFAULT '',
    fake INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS questions (
    question_id TEXT PRIMARY KEY,
    record TEXT NOT NULL,
    ok INTEGER NOT NULL,
    served_model TEXT NOT NULL DEFAULT '',
    fake INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS ingested (
    conversation_id TEXT PRIMARY KEY,
    measures TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


def stored_signature(path: Path) -> str | None:
    """The run signature recorded in a state file, without creating one."""
    if not path.exists():
        return None
    store = RunStore(path)
    try:
        return store.signature()
    finally:
        store.close()


def forget_run(path: Path) -> bool:
    """Drop a state file's run (its questions, ingestion and signature), keeping the answer
    cache, whose key covers the whole prompt: `--replace` starts another run over it.
    False when there is no state file."""
    if not path.exists():
        return False
    store = RunStore(path)
    try:
        store.conn.executescript("DELETE FROM questions; DELETE FROM ingested; DELETE FROM meta;")
    finally:
        store.close()
    return True


def answer_key(params: dict[str, Any], prompt: str) -> str:
    return sha256_text(json.dumps({"params": params, "prompt": prompt}, sort_keys=True))


@dataclass(frozen=True)
class CachedAnswer:
    answer: str
    input_tokens: int
    output_tokens: int
    latency_s: float
    served_model: str = ""
    fake: bool = False


class RunStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn = open_state_db(path)
        self.conn.executescript(_SCHEMA)
        for table in ("answers", "questions"):
            have = {row[1] for row in self.conn.execute(f"PRAGMA table_info({table})")}
            for name, kind in (("served_model", "TEXT"), ("fake", "INTEGER")):
                if name not in have:  # a state file from before: see the module's docstring
                    default = "''" if kind == "TEXT" else "0"
                    self.conn.execute(
                        f"ALTER TABLE {table} ADD COLUMN {name} {kind} NOT NULL DEFAULT {default}"
                    )

    def close(self) -> None:
        self.conn.close()

    # -- the run this state belongs to ---------------------------------------------------

    def signature(self) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'signature'").fetchone()
        return None if row is None else str(row[0])

    def set_signature(self, signature: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('signature', ?)", (signature,))

    # -- answers -----------------------------------------------------------------------

    def get_answer(self, key: str) -> CachedAnswer | None:
        row = self.conn.execute(
            "SELECT answer, input_tokens, output_tokens, latency_s, served_model, fake "
            "FROM answers WHERE key = ?",
            (key,),
        ).fetchone()
        if row is None:
            return None
        return CachedAnswer(row[0], row[1], row[2], row[3], row[4], bool(row[5]))

    def put_answer(self, key: str, answer: CachedAnswer) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                answer.answer,
                answer.input_tokens,
                answer.output_tokens,
                answer.latency_s,
                time.time(),
                answer.served_model,
                int(answer.fake),
            ),
        )

    def answer_keys(self) -> set[str]:
        return {row[0] for row in self.conn.execute("SELECT key FROM answers")}

    # -- questions -----------------------------------------------------------------------

    def finished(self) -> dict[str, dict[str, Any]]:
        """Question id -> prediction line, for questions that ended without an error."""
        rows = self.conn.execute("SELECT question_id, record FROM questions WHERE ok = 1")
        return {qid: json.loads(record) for qid, record in rows}

    def all_records(self) -> dict[str, dict[str, Any]]:
        rows = self.conn.execute("SELECT question_id, record FROM questions")
        return {qid: json.loads(record) for qid, record in rows}

    def put_record(
        self, question_id: str, record: dict[str, Any], served: tuple[str, bool] = ("", False)
    ) -> None:
        """`served`: (served model, fake) of the answer the line holds."""
        self.conn.execute(
            "INSERT OR REPLACE INTO questions VALUES (?, ?, ?, ?, ?)",
            (
                question_id,
                json.dumps(record, ensure_ascii=False),
                int(record["error"] is None),
                served[0],
                int(served[1]),
            ),
        )

    def served(self, question_ids: Iterable[str]) -> Served:
        """Who made the answers of these questions' lines, kept from earlier attempts too:
        a rerun that asks nothing signs the same served model and fake mark."""
        wanted = set(question_ids)
        rows = self.conn.execute("SELECT question_id, served_model, fake FROM questions")
        return Served.of((model, bool(fake)) for qid, model, fake in rows if qid in wanted)

    # -- ingestion -----------------------------------------------------------------------

    def ingestion(self) -> dict[str, dict[str, Any]]:
        rows = self.conn.execute("SELECT conversation_id, measures FROM ingested")
        return {cid: json.loads(measures) for cid, measures in rows}

    def put_ingestion(self, conversation_id: str, measures: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO ingested VALUES (?, ?)",
            (conversation_id, json.dumps(measures)),
        )
