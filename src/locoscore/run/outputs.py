"""A finished run into its folder: predictions.jsonl and run.json, then the scores exactly
as `locoscore score` writes them, with a `run` section in summary.json (the CLI then builds
the reports, as `score` does)."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

from locoscore._io import sha256_file, write_json_atomic, write_jsonl_atomic
from locoscore.generic.floors import record_floors
from locoscore.llm.ledger import Spend, attempts_json, tokens_apart
from locoscore.results.layout import PREDICTIONS, RUN_JSON
from locoscore.run.folder import claim_for_predictions
from locoscore.run.measures import ingestion_totals, run_measures
from locoscore.run.pipeline import RunResult


def _all_attempts(now: Spend, earlier: Spend, results_name: str) -> dict[str, Any]:
    return {**(now + earlier).to_json(results_name), **attempts_json(now, earlier, results_name)}


def run_document(result: RunResult) -> dict[str, Any]:
    run = result.resolved
    total = result.answer_spend + result.answer_spend_earlier
    return {
        **run.describe(result.served),
        "ingestion": {
            "per_conversation": result.ingestion,
            "totals": ingestion_totals(result.ingestion),
            # what ingesting cost across attempts (an interrupted ingestion is redone)
            "all_attempts": _all_attempts(
                result.ingestion_spend, result.ingestion_spend_earlier, "sessions"
            ),
        },
        "answer_calls": {
            "made": total.requests,
            "cached": result.calls_cached,
            "cost_usd": None if total.cost_usd is None else round(total.cost_usd, 6),
            "input_tokens": total.input_tokens,
            "output_tokens": total.output_tokens,
            **tokens_apart(total.input_tokens, total.cache_read_tokens, total.cache_write_tokens),
            # which price table priced the calls (`locoscore reprice` may change it)
            "price_table": run.answer.settings.prices.source,
            # n/a with its reason, never $0
            **({"cost_unknown_reason": why} if (why := result.answer_cost_unknown) else {}),
            **attempts_json(result.answer_spend, result.answer_spend_earlier, "answers"),
            "concurrency": result.concurrency,
            # this attempt's failed attempts sent again, by kind (timeout, rate_limit, ...)
            "retries": result.retries,
            "usage": usage_source(result.records),
        },
        "context_fit": result.context_fit,
        "measures": run_measures(
            result.records, run.benchmark.type_order, run.benchmark.evidence_metric()
        ),
        "probe": result.probe,
        "warnings": result.warnings,
        "stop_reason": result.stop_reason,
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def usage_source(records: list[dict[str, Any]]) -> str:
    """Where the answer tokens come from: the server's usage, or counted locally (tiktoken)
    for a server that reports none."""
    local = any((r.get("answer_tokens") or {}).get("counted_locally") for r in records)
    return "counted locally" if local else "reported by the provider"


def write_run_outputs(result: RunResult, out: Path) -> dict[str, Any]:
    """predictions.jsonl, run.json, scores.jsonl and summary.json; the summary written."""
    identity = result.resolved.benchmark.records_identity
    result.dropped += claim_for_predictions(
        out, result.records, replace=result.resolved.settings.replace, identity=identity
    )
    document = run_document(result)
    predictions = out / PREDICTIONS
    write_jsonl_atomic(predictions, result.records)
    recorded = identity(str(predictions), result.records)
    document["predictions"] = dataclasses.replace(
        recorded, file_sha256=sha256_file(predictions)
    ).to_json()
    write_json_atomic(out / RUN_JSON, document)
    run_section = {k: v for k, v in document.items() if k not in ("finished_at",)}
    run = result.resolved
    summary = run.benchmark.score_run(predictions, run.dataset, out, run_section)
    # the benchmark's own floors (blind baselines) over exactly the questions asked
    return record_floors(out, summary, run.benchmark, run.dataset, run.questions)
