"""The numbers a comparison of memory systems needs, from a run's prediction lines:
latency and context-token percentiles, evidence recall by question type, answer length, the
benchmark's per-question metric split by whether the evidence was retrieved (where it
declares one: `Benchmark.evidence_metric`), and the ingestion and answer-side costs."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from locoscore.stats import LatencyStats

# (its name in the measures, (prediction, gold, type id) -> 0..1): `Benchmark.evidence_metric`
EvidenceMetric = tuple[str, Callable[[str, Any, int], float]]


def _latency(values: Sequence[float | None]) -> dict[str, Any] | None:
    stats = LatencyStats.from_values(values)
    if stats is None:
        return None
    return {k: round(v, 6) if isinstance(v, float) else v for k, v in vars(stats).items()}


def _by_category(
    records: Sequence[dict[str, Any]],
    value: Callable[[dict[str, Any]], float | None],
    types: Sequence[int],
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    groups: dict[str, list[dict[str, Any]]] = {"overall": list(records)}
    for cid in types:
        groups[str(cid)] = [r for r in records if r["category"] == cid]
    for name, rows in groups.items():
        values = [v for v in (value(r) for r in rows) if v is not None]
        out[name] = {
            "n": len(values),
            "mean": round(statistics.fmean(values), 6) if values else None,
            "median": round(statistics.median(values), 6) if values else None,
        }
    return out


def evidence_bucket(recall: float | None) -> str:
    if recall is None:
        return "unknown"
    if recall >= 1.0:
        return "all"
    return "some" if recall > 0 else "none"


def f1_by_evidence(records: Sequence[dict[str, Any]], metric: EvidenceMetric) -> dict[str, Any]:
    """The metric (x100) of questions whose evidence was all / partly / not retrieved."""
    name, score_of = metric
    buckets: dict[str, list[float]] = {"all": [], "some": [], "none": [], "unknown": []}
    for r in records:
        if r["error"] is None:
            score = score_of(r["prediction"], r["answer"], r["category"])
            buckets[evidence_bucket(r["evidence_recall"])].append(100.0 * score)
    return {
        bucket: {"n": len(v), name: round(statistics.fmean(v), 4) if v else None}
        for bucket, v in buckets.items()
    }


def ingestion_totals(ingestion: dict[str, dict[str, Any]]) -> dict[str, Any]:
    usage = [m["usage"] for m in ingestion.values()]
    costs = [u["cost_usd"] for u in usage if u["cost_usd"] is not None]
    return {
        "conversations": len(ingestion),
        "wall_s": round(sum(m["wall_s"] for m in ingestion.values()), 4),
        "wall_s_per_conversation": _latency([m["wall_s"] for m in ingestion.values()]),
        "input_tokens": sum(u["input_tokens"] for u in usage),
        "output_tokens": sum(u["output_tokens"] for u in usage),
        "embedding_tokens": sum(u.get("embedding_tokens", 0) for u in usage),
        "calls": sum(u["calls"] for u in usage),
        "cost_usd": round(sum(costs), 6) if costs else None,
        "failed": sorted(cid for cid, m in ingestion.items() if m.get("error")),
    }


_KIND = re.compile(r"^(search failed|ingestion failed|not run|[a-z_]+)(?=:)")


def failure_kinds(records: Sequence[dict[str, Any]]) -> Counter[str]:
    """Failed questions by kind (context_overflow, timeout, search failed, ...): the reason
    for a mass failure, for the final line and run.json."""
    kinds: Counter[str] = Counter()
    for r in records:
        if r["error"] is not None:
            match = _KIND.match(r["error"])
            kinds[match.group(1) if match else "other"] += 1
    return kinds


def run_measures(
    records: Sequence[dict[str, Any]],
    types: Sequence[int],
    evidence_metric: EvidenceMetric | None = None,
) -> dict[str, Any]:
    """Per-run distributions of the per-question measures, per question type (`types`: the
    benchmark's ids); the split by evidence only for a benchmark declaring its metric."""
    ok = [r for r in records if r["error"] is None]
    tokens_in = sum(int((r.get("answer_tokens") or {}).get("input", 0)) for r in records)
    tokens_out = sum(int((r.get("answer_tokens") or {}).get("output", 0)) for r in records)
    return {
        "questions": len(records),
        "failed": len(records) - len(ok),
        "failed_by_kind": dict(failure_kinds(records).most_common()),
        "latency": {
            name: _latency([r[name] for r in ok])
            for name in ("search_latency_s", "answer_latency_s", "total_latency_s")
        },
        "context_tokens": _latency([r["context_tokens"] for r in ok]),
        "evidence_recall": _by_category(ok, lambda r: r["evidence_recall"], types),
        "answer_words": _by_category(ok, lambda r: float(r["answer_words"]), types),
        "f1_by_evidence": None
        if evidence_metric is None
        else f1_by_evidence(records, evidence_metric),
        "answer_tokens": {"input": tokens_in, "output": tokens_out},
        "answer_queued_s": _latency([r.get("answer_queued_s") for r in ok]),
    }
