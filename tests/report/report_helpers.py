"""Deterministic results folders in the exact schema `locoscore score` / `judge` write."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from locoscore.benchmarks.locomo.categories import CATEGORY_NAMES

# Per conversation: 3 single-hop, 2 multi-hop, 2 temporal, 1 open-domain, 2 adversarial.
CATEGORY_CYCLE = (4, 4, 4, 1, 1, 2, 2, 3, 5, 5)
LEXICAL = {"locomo": ("f1_locomo",), "mem0": ("f1_mem0", "bleu1_mem0"), "spec": ("f1_spec",)}
INCLUDES_ADV = {"locomo": True, "mem0": False, "spec": True}


def base_rows(conversations: int = 2) -> list[dict[str, Any]]:
    rows = []
    for c in range(conversations):
        for i, cid in enumerate(CATEGORY_CYCLE):
            k = c * len(CATEGORY_CYCLE) + i
            rows.append(
                {
                    "sample_id": f"conv-{c + 1}",
                    "qa_index": i,
                    "category": cid,
                    "category_name": CATEGORY_NAMES[cid],
                    "question": f"Question {k}?",
                    "answer": f"gold {k}",
                    "prediction": f"prediction {k}",
                    "f1_locomo": round((k % 5) / 4, 4),
                    "f1_mem0": round((k % 4) / 3, 4),
                    "bleu1_mem0": round((k % 3) / 2, 4),
                    "f1_spec": round((k % 5) / 4, 4),
                    "search_latency_s": round(0.1 + 0.01 * k, 3),
                    "total_latency_s": round(0.5 + 0.05 * k, 3),
                    "context_tokens": 1000 + 10 * k,
                }
            )
    return rows


def binary_runs(k: int, runs: int = 3) -> list[float | None]:
    """A fixed pattern: most questions unanimous, some split, one failed run in a few."""
    pattern = k % 4
    if pattern == 0:
        return [100.0] * runs
    if pattern == 1:
        return [0.0] * runs
    if pattern == 2:
        return [100.0, 0.0, 100.0][:runs]
    return [100.0, None, 100.0][:runs]


def add_judge(
    rows: list[dict[str, Any]],
    protocol: str = "binary",
    scores: Callable[[int], list[float | None]] = binary_runs,
) -> dict[str, Any]:
    """Add j_* fields (adversarial not judged, as by default) and return the summary section."""
    for k, row in enumerate(rows):
        if row["category"] == 5:
            continue
        runs = scores(k)
        ok = [s for s in runs if s is not None]
        mean = sum(ok) / len(ok)
        var = sum((s - mean) ** 2 for s in ok) / (len(ok) - 1) if len(ok) > 1 else None
        row.update(
            j_mean=mean,
            j_std=None if var is None else var**0.5,
            j_runs=len(ok),
            j_scores=runs,
            j_failures=len(runs) - len(ok),
            j_protocol=protocol,
        )
    judged = [r for r in rows if "j_mean" in r]
    overall = sum(r["j_mean"] for r in judged) / len(judged)
    model = "gpt-4o-mini" if protocol == "binary" else "claude-sonnet-4-6"
    return {
        "signature": f"judge:{protocol}|model:{model}|temp:0|runs:3|prompt:abc123|version:0.1.0",
        "protocol": protocol,
        "provider": "fake",
        "model": model,
        "temperature": 0.0,
        "api_version": None,
        "runs": 3,
        "prompt_hash": "abc123",
        "include_adversarial": False,
        "scale": "0-100",
        "by_category": {},
        "overall": {"mean": overall, "std": None, "count": len(judged)},
        "run_level": {"per_run_means": [], "mean": overall, "std": None},
        "calls": {},
        "usage": {},
    }


def _metric_summary(rows: list[dict[str, Any]], column: str, includes_adv: bool) -> dict[str, Any]:
    by_cat: dict[str, Any] = {}
    for cid, name in CATEGORY_NAMES.items():
        values = [r[column] for r in rows if r["category"] == cid and r.get(column) is not None]
        if values:
            by_cat[str(cid)] = {
                "name": name,
                "mean": sum(values) / len(values),
                "count": len(values),
                "min": min(values),
                "max": max(values),
            }

    def overall(include: bool) -> dict[str, Any]:
        values = [r[column] for r in rows if include or r["category"] != 5]
        return {
            "question_weighted": sum(values) / len(values),
            "category_macro": 0.0,
            "count": len(values),
        }

    chosen = overall(includes_adv)
    return {
        "by_category": by_cat,
        "overall_all": overall(True),
        "overall_no_adversarial": overall(False),
        "overall": {
            "mean": chosen["question_weighted"],
            "count": chosen["count"],
            "includes_adversarial": includes_adv,
        },
    }


def summary_for(rows: list[dict[str, Any]], judge: dict[str, Any] | None = None) -> dict[str, Any]:
    lexical = {
        proto: {
            "signature": f"proto:{proto}|version:0.1.0",
            "metrics": {
                col.split("_")[0]: _metric_summary(rows, col, INCLUDES_ADV[proto]) for col in cols
            },
        }
        for proto, cols in LEXICAL.items()
    }
    summary: dict[str, Any] = {
        "schema_version": 1,
        "locoscore_version": "0.1.0",
        "input": {
            "path": "predictions.jsonl",
            "sha256": "0" * 64,
            "format": "native",
            "records": len(rows),
        },
        "dataset": {"path": "locomo10.json", "sha256": "1" * 64, "checksum_ok": True},
        "join": {
            "matched": len(rows),
            **{
                name: {"count": 0, "examples": []}
                for name in ("unmatched", "duplicates", "gold_mismatches")
            },
        },
        "lexical": lexical,
    }
    if judge is not None:
        summary["judge"] = judge
    return summary


def write_folder(
    directory: Path, rows: list[dict[str, Any]], judge: dict[str, Any] | None = None
) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "scores.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    (directory / "summary.json").write_text(json.dumps(summary_for(rows, judge), indent=2))
    return directory


# base_rows: per conversation 3 single-hop (4), 2 multi-hop (1), 2 temporal (2),
# 1 open-domain (3), 2 adversarial (5); question k = 10 * conversation + qa_index.
FLAGGED = {
    "conv-1#0": "HALLUCINATION",  # k 0, single-hop: excluded
    "conv-1#3": "TEMPORAL_ERROR",  # k 3, multi-hop: excluded
    "conv-2#5": "AMBIGUOUS",  # k 15, temporal: excluded
    "conv-1#1": "WRONG_CITATION",  # k 1, single-hop: kept, the gold stands
    "conv-9#0": "HALLUCINATION",  # not in this folder: counts nowhere
}


def errata_section(flagged: dict[str, str] = FLAGGED, sha256: str = "e" * 64) -> dict[str, Any]:
    return {
        "source": "test errata",
        "path": "errors.json",
        "sha256": sha256,
        "checksum_ok": False,
        "entries": len(flagged),
        "score_changing": 4,
        "by_error_type": {},
        "flagged": flagged,
    }


def record_errata(directory: Path, sha256: str = "e" * 64) -> Path:
    """Record FLAGGED in the folder's summary.json, as `score --errata` does."""
    summary = json.loads((directory / "summary.json").read_text())
    summary["errata"] = errata_section(sha256=sha256)
    (directory / "summary.json").write_text(json.dumps(summary))
    return directory


def folder_with_errata(directory: Path, judged: bool = True) -> Path:
    rows = base_rows()
    judge = add_judge(rows, "binary") if judged else None
    return record_errata(write_folder(directory, rows, judge))
