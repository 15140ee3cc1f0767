"""A small PersonaMem folder in the derived copy's shape (two contexts, six questions), the
real copy's path, and a fake answerer that picks the longest option it is shown."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

REAL_32K = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "personamem" / "32k"


def _session(context: str, i: int, fact: str) -> dict[str, Any]:
    content = (
        f"[SYSTEM] Current user persona: Name: Ana\n\n[USER] User: {fact}\n\n"
        f"[ASSISTANT] Assistant: Noted, session {i}.\n\n[USER] \n\n[ASSISTANT] Anything else?"
    )  # the empty user turn is dropped
    return {"id": f"{context}_{i}", "content": content, "user_id": context, "timestamp": None}


def _question(qid: str, context: str, kind: str, options: list[str], gold: str) -> dict[str, Any]:
    listed = "\n".join(f"({x}) {o}" for x, o in zip("abcd", options, strict=True))
    return {
        "id": qid,
        "query": f"User: Ana\n\nWhat should I do this weekend?\n\n{listed}",
        "gold_answers": [f"({gold}) {options['abcd'.index(gold)]}", gold],
        "gold_ids": [f"{context}_0", f"{context}_1"],
        "user_id": context,
        "meta": {"persona_id": "0", "question_type": kind, "topic": "hobbies",
                 "retrieval_query": "User: Ana\n\nWhat should I do this weekend?"},
    }  # fmt: skip


# (id, context, type, options, gold letter): the longest option is the gold in q1, q3, q5
QUESTIONS = [
    ("q1", "ctxA", "recall_user_shared_facts",
     ["Go hiking.", "Go hiking in the hills you love.", "Paint.", "Sleep."], "b"),
    ("q2", "ctxA", "suggest_new_ideas",
     ["Try pottery.", "Try a long pottery course in town.", "Cook.", "Read a book."], "a"),
    ("q3", "ctxB", "recall_user_shared_facts",
     ["Swim.", "Run.", "Swim in the lake by your cabin.", "Swim."], "c"),
    ("q4", "ctxB", "track_full_preference_evolution",
     ["Jazz now, since you\nleft rock behind\nlast year.", "Rock.", "Jazz.", "Pop music."], "c"),
    ("q5", "ctxB", "generalizing_to_new_scenarios",
     ["Tea.", "Coffee with oat milk, as usual.", "Water.", "Tea."], "b"),
    ("q6", "ctxA", "suggest_new_ideas",
     ["Chess.", "Chess club on Fridays.", "Chess.", "Darts league."], "a"),
]  # fmt: skip


def write_folder(folder: Path, change: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """The folder's two files; `change` edits {"queries": [...], "documents": [...]} first."""
    raw = {
        "documents": [_session(c, i, f"I love {c} thing {i}.") for c in ("ctxA", "ctxB")
                      for i in range(2)],
        "queries": [_question(*q) for q in QUESTIONS],
    }  # fmt: skip
    if change is not None:
        change(raw)
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("queries", "documents"):
        (folder / f"{name}.json.gz").write_bytes(gzip.compress(json.dumps(raw[name]).encode()))
    return folder


def pick_longest(prompt: str) -> str:
    """A fake answerer: the letter of the longest option shown (first of equals), as (x)."""
    shown = re.findall(r"^\(([a-d])\) (.*)$", prompt.split("four possible replies:", 1)[-1],
                       re.MULTILINE)  # fmt: skip
    if not shown:
        return "I cannot tell."
    letter = max(shown, key=lambda s: (len(s[1].strip()), -ord(s[0])))[0]
    return f"({letter})"
