"""Retrieval metrics equal an independent implementation written the official code's way:
a flat corpus of user turns (evidence turns renamed when not marked), rankings as corpus
indexes, the ideal ranking sorted from the corpus' relevances."""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

from locoscore.benchmarks.longmemeval import retrieval
from locoscore.benchmarks.longmemeval.data import LongMemEvalData, load_longmemeval
from locoscore.testing.longmemeval_fixture import make_records, write_fixture


def _data(tmp_path: Path) -> LongMemEvalData:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_longmemeval(write_fixture(tmp_path / "s.json"))


def test_hand_computed_values() -> None:
    gold = {"a", "b"}
    ranking = ["x", "a", "y", "b"]
    # ranks 1 and 2 undiscounted, rank 4 divided by log2(4) = 2
    assert retrieval.metrics_at(ranking, gold, 1) == {
        "recall_any@1": 0.0, "recall_all@1": 0.0, "ndcg_any@1": 0.0,
    }  # fmt: skip
    assert retrieval.metrics_at(ranking, gold, 3) == {
        "recall_any@3": 1.0, "recall_all@3": 0.0, "ndcg_any@3": 0.5,
    }  # fmt: skip
    assert retrieval.metrics_at(ranking, gold, 5)["ndcg_any@5"] == 0.75
    assert retrieval.metrics_at(["a", "b"], gold, 1)["ndcg_any@1"] == 1.0


# ------------------------------------------------------------ the independent reference


def _ref_dcg(rels: list[float], k: int) -> float:
    rels = rels[:k]
    return (
        rels[0]
        + sum(r / math.log2(i) for i, r in zip(range(2, len(rels) + 1), rels[1:], strict=True))
        if rels
        else 0.0
    )


def _ref_eval(
    rankings: list[int], correct: set[str], corpus_ids: list[str], k: int
) -> tuple[float, float, float]:
    recalled = {corpus_ids[i] for i in rankings[:k]}
    rels = [1.0 if c in correct else 0.0 for c in corpus_ids]
    ideal = _ref_dcg(sorted(rels, reverse=True), k)
    actual = _ref_dcg([rels[i] for i in rankings[:k]], k)
    return (
        float(any(c in recalled for c in correct)),
        float(all(c in recalled for c in correct)),
        actual / ideal if ideal else 0.0,
    )


def _ref_corpus(record: dict[str, Any], level: str) -> list[str]:
    ids = []
    for sid, turns in zip(record["haystack_session_ids"], record["haystack_sessions"], strict=True):
        users = [(i, t) for i, t in enumerate(turns) if t["role"] == "user"]
        if level == "session":
            marked = any(t.get("has_answer") for _, t in users)
            ids.append(sid if "answer" not in sid or marked else sid.replace("answer", "noans"))
        else:
            for i, t in users:
                key = f"{sid}_{i + 1}"
                ids.append(
                    key
                    if "answer" not in sid or t["has_answer"]
                    else key.replace("answer", "noans")
                )
    return ids


def test_metrics_equal_the_reference_on_the_fixture(tmp_path: Path) -> None:
    data = _data(tmp_path)
    records = {r["question_id"]: r for r in make_records()}
    retrieved: dict[str, list[dict[str, Any]]] = {}
    expected: dict[str, dict[str, dict[str, float]]] = {}
    for meta in data.questions:
        record = records[meta.question_id]
        # a deterministic, imperfect ranking: user turns of the haystack, reversed
        turn_corpus = _ref_corpus(record, "turn")
        order = list(reversed(range(len(turn_corpus))))
        items = []
        for i in order:
            key = turn_corpus[i].replace("noans", "answer")
            sid, _, _ = key.rpartition("_")
            items.append({"sources": [{"session_id": sid, "turn_key": key, "role": "user"}]})
        retrieved[meta.question_id] = items
        if meta.abstention or not any("answer" in c for c in turn_corpus):
            continue
        session_corpus = _ref_corpus(record, "session")
        plain = [c.replace("noans", "answer") for c in session_corpus]
        session_rank = [
            plain.index(s) for s in dict.fromkeys(it["sources"][0]["session_id"] for it in items)
        ]
        expected[meta.question_id] = {}
        for level, corpus, ranking in (
            ("turn", turn_corpus, order),
            ("session", session_corpus, session_rank),
        ):
            gold = {c for c in corpus if "answer" in c}
            values = {}
            for k in retrieval.KS:
                a, b, c = _ref_eval(ranking, gold, corpus, k)
                values |= {f"recall_any@{k}": a, f"recall_all@{k}": b, f"ndcg_any@{k}": c}
            expected[meta.question_id][level] = values
    result = retrieval.aggregate(data.questions, retrieved, {t: t for t in retrieval_types()})
    assert result["skipped"] == {"abstention": 4, "no_gold": 1, "unattributed": 0}
    assert result["scored"] == len(expected) == 5
    for level in ("session", "turn"):
        for name, value in result["overall"][level].items():
            mean = sum(e[level][name] for e in expected.values()) / len(expected)
            assert math.isclose(value, round(mean, 6), abs_tol=1e-6), (level, name)
    # a type with one scored question equals that question's values
    ku = result["by_type"]["knowledge-update"]
    assert ku["count"] == 1
    assert math.isclose(
        ku["turn"]["ndcg_any@3"], round(expected["c81e728d"]["turn"]["ndcg_any@3"], 6)
    )
    # the reversed ranking is imperfect: one haystack ranks a filler first, and the
    # two-evidence questions do not have both in the top 1
    turn = result["overall"]["turn"]
    assert (turn["recall_any@1"], turn["recall_all@1"], turn["recall_all@50"]) == (0.8, 0.2, 1.0)


def retrieval_types() -> tuple[str, ...]:
    from locoscore.benchmarks.longmemeval.data import QUESTION_TYPES

    return QUESTION_TYPES
