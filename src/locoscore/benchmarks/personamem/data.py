"""PersonaMem's 32k split as the one copy we have: a peer harness's derived folder
(vectorize-io/agent-memory-benchmark @ de83fa7, `data/personamem/32k/`), not the release.

The folder holds `queries.json.gz` (589 four-option questions) and `documents.json.gz` (195
sessions of 37 shared contexts; turns flattened into `[SYSTEM]`/`[USER]`/`[ASSISTANT]`
markers); its `categories.json.gz` repeats the question types and is not read. The copy is
session-level: the release's per-question turn cut (`end_index_in_shared_context`) cannot be
rebuilt from it, so every question sees its whole context (its gold sessions are all of them).

A bad record is bad input naming the file, the record and the field.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore._io import sha256_text
from locoscore.errors import DatasetError

QUERIES = "queries.json.gz"
DOCUMENTS = "documents.json.gz"
FILES = (QUERIES, DOCUMENTS)
# The pinned copy (sha256 of each file's bytes, as /work/shared/reference/personamem.md
# lists them): another copy loads too, but signs as unknown.
PINNED = {
    QUERIES: "a5207c2c29a5b60cf2311c2413b14dcc67e8f889a75f1e3760dc931ee09f866a",
    DOCUMENTS: "26b7eaa63a55c8957f411360b2dcd1e898a9dcdd14885c43bf063a4e431262b5",
}
# In the order of their counts on the 32k split (the peer's names, not the paper's).
QUESTION_TYPES = (
    "track_full_preference_evolution",
    "recall_user_shared_facts",
    "recalling_the_reasons_behind_previous_updates",
    "suggest_new_ideas",
    "generalizing_to_new_scenarios",
    "provide_preference_aligned_recommendations",
    "recalling_facts_mentioned_by_the_user",
)
LETTERS = "abcd"
ROLES = {"SYSTEM": "system", "USER": "user", "ASSISTANT": "assistant"}
_MARKER = re.compile(r"(?:^|\n\n)\[(SYSTEM|USER|ASSISTANT)\] ")
_OPTION = re.compile(r"\n(?=\([bcd]\) )")


def folder_sha256(shas: dict[str, str]) -> str:
    """One hash naming the folder: over its files' sorted `name sha256` lines."""
    lines = sorted(f"{name} {sha}" for name, sha in shas.items())
    return sha256_text("\n".join(lines))


PINNED_SHA256 = folder_sha256(PINNED)


@dataclass(frozen=True)
class Item:
    """One question as the file stores it: the options in their stored order (a-d)."""

    question_id: str
    context_id: str
    persona_id: str
    type_key: str
    topic: str
    message: str  # the user's message, with its `User: <name>` line when the file has one
    options: tuple[str, str, str, str]
    gold_letter: str  # as stored

    @property
    def gold_indexes(self) -> frozenset[int]:
        """Every stored position holding the gold text (two for 17 questions)."""
        gold = self.options[LETTERS.index(self.gold_letter)].strip()
        return frozenset(i for i, text in enumerate(self.options) if text.strip() == gold)


@dataclass(frozen=True)
class Session:
    doc_id: str
    turns: tuple[tuple[str, str], ...]  # (role, text), empty turns dropped by the copy


@dataclass(frozen=True)
class PersonaMemData:
    path: Path  # the folder
    sha256: str  # `folder_sha256` of the files read
    files: dict[str, str]  # file name -> sha256
    items: tuple[Item, ...]
    contexts: dict[str, tuple[Session, ...]]  # context id -> its sessions, in file order

    @property
    def pinned(self) -> bool:
        return self.sha256 == PINNED_SHA256


def _read(path: Path) -> tuple[Any, str]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise DatasetError(
            f"missing (a PersonaMem folder holds {', '.join(FILES)})", file=str(path)
        ) from None
    except OSError as exc:
        raise DatasetError(f"cannot read ({exc.strerror})", file=str(path)) from None
    try:
        loaded = json.loads(gzip.decompress(raw))
    except (OSError, EOFError, ValueError) as exc:
        raise DatasetError(f"not gzipped JSON ({exc})", file=str(path)) from None
    if not isinstance(loaded, list):
        raise DatasetError("expected a JSON list", file=str(path))
    return loaded, hashlib.sha256(raw).hexdigest()


def _text(record: Any, key: str, file: Path, where: str) -> str:
    value = record.get(key) if isinstance(record, dict) else None
    if not isinstance(value, str) or not value.strip():
        raise DatasetError(
            f"expected a text, got {value!r}", file=str(file), record=where, field=key
        )
    return value


def split_turns(content: str) -> tuple[tuple[str, str], ...]:
    """A session's flattened text back into (role, text) turns at its role markers."""
    marks = list(_MARKER.finditer(content))
    if not marks or marks[0].start() != 0:
        raise ValueError("does not start with a [SYSTEM], [USER] or [ASSISTANT] marker")
    ends = [m.start() for m in marks[1:]] + [len(content)]
    turns = (
        (ROLES[m.group(1)], content[m.end() : end].strip())
        for m, end in zip(marks, ends, strict=True)
    )
    return tuple(t for t in turns if t[1])


def split_query(query: str) -> tuple[str, tuple[str, str, str, str]]:
    """(message, the four options' texts in stored order) of a stored query."""
    at = query.find("\n\n(a) ")
    if at < 0:
        raise ValueError("no '(a) ' option after a blank line")
    parts = _OPTION.split(query[at + 2 :])
    if len(parts) != 4 or [p[:4] for p in parts] != [f"({x}) " for x in LETTERS]:
        raise ValueError("expected four options (a) to (d), one per line")
    a, b, c, d = (p[4:] for p in parts)
    return query[:at], (a, b, c, d)


def _item(raw: Any, file: Path, n: int) -> Item:
    where = f"[{n}]"
    qid = _text(raw, "id", file, where)
    query = _text(raw, "query", file, where)
    try:
        message, options = split_query(query)
    except ValueError as exc:
        raise DatasetError(str(exc), file=str(file), record=qid, field="query") from None
    gold = raw.get("gold_answers")
    ok = isinstance(gold, list) and len(gold) == 2 and all(isinstance(g, str) for g in gold)
    if not ok or gold[1] not in LETTERS:
        raise DatasetError(
            f"expected [gold text, gold letter a-d], got {gold!r}",
            file=str(file), record=qid, field="gold_answers",
        )  # fmt: skip
    if gold[0].strip() != f"({gold[1]}) {options[LETTERS.index(gold[1])]}".strip():
        raise DatasetError(
            f"the gold text is not option ({gold[1]})",
            file=str(file), record=qid, field="gold_answers",
        )  # fmt: skip
    meta = raw.get("meta")
    if not isinstance(meta, dict):
        raise DatasetError("expected an object", file=str(file), record=qid, field="meta")
    key = meta.get("question_type")
    if key not in QUESTION_TYPES:
        raise DatasetError(
            f"unknown question type {key!r} (known: {', '.join(QUESTION_TYPES)})",
            file=str(file), record=qid, field="meta.question_type",
        )  # fmt: skip
    return Item(
        question_id=qid,
        context_id=_text(raw, "user_id", file, qid),
        persona_id=str(meta.get("persona_id", "")),
        type_key=key,
        topic=str(meta.get("topic", "")),
        message=message,
        options=options,
        gold_letter=gold[1],
    )


def load_personamem(folder: Path) -> PersonaMemData:
    if not folder.is_dir():
        raise DatasetError(
            f"not a folder (PersonaMem's --dataset is the folder holding {', '.join(FILES)})",
            file=str(folder),
        )
    documents, doc_sha = _read(folder / DOCUMENTS)
    queries, query_sha = _read(folder / QUERIES)
    doc_file, query_file = folder / DOCUMENTS, folder / QUERIES
    contexts: dict[str, list[Session]] = {}
    seen: set[str] = set()
    for n, raw in enumerate(documents):
        doc_id = _text(raw, "id", doc_file, f"[{n}]")
        context = _text(raw, "user_id", doc_file, doc_id)
        if doc_id in seen:
            raise DatasetError(
                "session listed twice", file=str(doc_file), record=doc_id, field="id"
            )
        seen.add(doc_id)
        try:
            turns = split_turns(_text(raw, "content", doc_file, doc_id))
        except ValueError as exc:
            raise DatasetError(
                str(exc), file=str(doc_file), record=doc_id, field="content"
            ) from None
        contexts.setdefault(context, []).append(Session(doc_id, turns))
    items, ids = [], set()
    for n, raw in enumerate(queries):
        item = _item(raw, query_file, n)
        if item.question_id in ids:
            raise DatasetError(
                "question listed twice", file=str(query_file), record=item.question_id, field="id"
            )
        if item.context_id not in contexts:
            raise DatasetError(
                f"no session of context {item.context_id!r} in {DOCUMENTS}",
                file=str(query_file), record=item.question_id, field="user_id",
            )  # fmt: skip
        ids.add(item.question_id)
        items.append(item)
    files = {QUERIES: query_sha, DOCUMENTS: doc_sha}
    return PersonaMemData(
        folder,
        folder_sha256(files),
        files,
        tuple(items),
        {c: tuple(s) for c, s in contexts.items()},
    )
