"""LongMemEval's retrieval metrics, as its official code defines them (our own code).

Gold follows the official retriever, which indexes user turns only: a session is gold when
its id is an evidence id (`answer_session_ids`) and one of its user turns has `has_answer`;
a turn is gold when it is such a user turn, keyed `<session id>_<turn index + 1>`. A
question is skipped (and counted) when it is an abstention (`_abs`) or has no gold at all.

For k in 1, 3, 5, 10, 30, 50: `recall_any@k` (any gold item in the top k), `recall_all@k`
(every gold item in the top k) and `ndcg_any@k`, whose discount leaves ranks 1 and 2 both
undiscounted and divides rank r >= 2 by log2(r) (the official variant), normalised by the
ideal ranking of the gold items. A system's ranking is the order in which the retrieved
items name sessions (turns) first; items that name none cannot be scored. At session level a
session counts once (the official session-granularity retrieval); the official conversion of
a turn ranking to sessions, which weighs a session once per turn in its NDCG, is not
reproduced (its recall figures are the same).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from statistics import fmean
from typing import Any

from locoscore.benchmarks.longmemeval.data import QuestionMeta

KS = (1, 3, 5, 10, 30, 50)
LEVELS = ("session", "turn")


def gold_turns(meta: QuestionMeta) -> set[str]:
    answer_ids = set(meta.answer_session_ids)
    return {
        s.turn_key(t)
        for s in meta.sessions
        if s.session_id in answer_ids
        for t, (role, mark) in enumerate(zip(s.roles, s.has_answer, strict=True))
        if role == "user" and mark
    }


def gold_sessions(meta: QuestionMeta) -> set[str]:
    answer_ids = set(meta.answer_session_ids)
    return {
        s.session_id
        for s in meta.sessions
        if s.session_id in answer_ids
        and any(r == "user" and m for r, m in zip(s.roles, s.has_answer, strict=True))
    }


def skip_reason(meta: QuestionMeta) -> str | None:
    if meta.abstention:
        return "abstention"
    if not gold_turns(meta):
        return "no_gold"
    return None


def _dcg(relevances: Sequence[float]) -> float:
    return sum(
        rel / (1.0 if rank <= 2 else math.log2(rank)) for rank, rel in enumerate(relevances, 1)
    )


def metrics_at(ranking: Sequence[str], gold: set[str], k: int) -> dict[str, float]:
    top = ranking[:k]
    found = set(top) & gold
    ideal = _dcg([1.0] * min(len(gold), k))
    actual = _dcg([1.0 if item in gold else 0.0 for item in top])
    return {
        f"recall_any@{k}": float(bool(found)),
        f"recall_all@{k}": float(found == gold),
        f"ndcg_any@{k}": actual / ideal if ideal else 0.0,
    }


def _first_seen(keys: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(keys))


def rankings(meta: QuestionMeta, retrieved: Sequence[dict[str, Any]]) -> dict[str, list[str]]:
    """The session and (user) turn rankings named by the retrieved items' turn ids."""
    turn_keys = []
    for item in retrieved:
        for source in item.get("sources") or ():
            turn_keys.append((source["session_id"], source["turn_key"], source["role"]))
    return {
        "session": _first_seen(sid for sid, _, _ in turn_keys),
        "turn": _first_seen(key for _, key, role in turn_keys if role == "user"),
    }


def question_metrics(meta: QuestionMeta, retrieved: Sequence[dict[str, Any]]) -> dict[str, Any]:
    ranked = rankings(meta, retrieved)
    gold = {"session": gold_sessions(meta), "turn": gold_turns(meta)}
    out: dict[str, Any] = {}
    for level in LEVELS:
        values: dict[str, float] = {}
        for k in KS:
            values.update(metrics_at(ranked[level], gold[level], k))
        out[level] = values
    return out


def aggregate(
    metas: Sequence[QuestionMeta],
    retrieved: dict[str, Sequence[dict[str, Any]]],
    type_names: dict[str, str],
) -> dict[str, Any]:
    """Per type and overall means over the scored questions, with what was skipped and why.

    A question whose items name no turn at all (a system that cannot say where an item came
    from) is not scored either: it is counted under `unattributed`.
    """
    skipped: dict[str, list[str]] = {"abstention": [], "no_gold": [], "unattributed": []}
    scored: list[tuple[str, dict[str, Any]]] = []
    for meta in metas:
        if meta.question_id not in retrieved:
            continue
        reason = skip_reason(meta)
        items = retrieved[meta.question_id]
        if reason is None and not any(item.get("sources") for item in items):
            reason = "unattributed"
        if reason is not None:
            skipped[reason].append(meta.question_id)
            continue
        scored.append((meta.question_type, question_metrics(meta, items)))

    def mean_of(rows: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            level: {name: round(fmean(r[level][name] for r in rows), 6) for name in rows[0][level]}
            for level in LEVELS
        }

    by_type = {}
    for key, name in type_names.items():
        rows = [m for t, m in scored if t == key]
        if rows:
            by_type[key] = {"name": name, "count": len(rows), **mean_of(rows)}
    return {
        "ks": list(KS),
        "scored": len(scored),
        "skipped": {reason: len(ids) for reason, ids in skipped.items()},
        "skipped_ids": skipped,
        "overall": mean_of([m for _, m in scored]) if scored else None,
        "by_type": by_type,
    }
