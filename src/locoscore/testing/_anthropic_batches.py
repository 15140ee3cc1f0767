"""Anthropic Message Batches: create, poll until ended, stream JSONL results in shuffled
order, cancel, list. Entries are judged at creation; the batch ends after N status polls."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from locoscore.testing._anthropic_wire import batch_entry_result, error_reply
from locoscore.testing._core import Core, Reply, json_reply, new_id

_RESULT_KINDS = ("succeeded", "errored", "canceled", "expired")


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment is not None else None


def _view(batch: dict[str, Any], base_url: str) -> dict[str, Any]:
    ended = batch["ended_at"] is not None
    counts = dict.fromkeys(_RESULT_KINDS, 0)
    if ended:
        for line in batch["results"]:
            counts[line["result"]["type"]] += 1
    counts["processing"] = 0 if ended else len(batch["results"])
    results_url = f"{base_url}/v1/messages/batches/{batch['id']}/results" if ended else None
    return {
        "id": batch["id"],
        "type": "message_batch",
        "processing_status": "ended" if ended else batch["status"],
        "request_counts": counts,
        "created_at": _iso(batch["created_at"]),
        "expires_at": _iso(batch["created_at"] + timedelta(hours=24)),
        "ended_at": _iso(batch["ended_at"]),
        "cancel_initiated_at": _iso(batch["cancel_initiated_at"]),
        "archived_at": None,
        "results_url": results_url,
    }


def _not_found(batch_id: str) -> Reply:
    return error_reply(404, "not_found_error", f"No message batch with id {batch_id!r}")


def create_batch(core: Core, body: Any, headers: Mapping[str, str], base_url: str) -> Reply:
    """POST /v1/messages/batches."""
    requests = body.get("requests") if isinstance(body, Mapping) else None
    if not isinstance(requests, list) or not requests:
        return error_reply(400, "invalid_request_error", "requests: at least one is required")
    custom_ids = [r.get("custom_id") if isinstance(r, Mapping) else None for r in requests]
    if not all(isinstance(c, str) and c for c in custom_ids):
        return error_reply(400, "invalid_request_error", "requests: each needs a custom_id")
    if len(set(custom_ids)) != len(custom_ids):
        return error_reply(400, "invalid_request_error", "requests: custom_id must be unique")
    version = headers.get("anthropic-version")
    lines = [
        {"custom_id": r["custom_id"], "result": batch_entry_result(core, r.get("params"), version)}
        for r in requests
    ]
    succeeded = sum(1 for line in lines if line["result"]["type"] == "succeeded")
    batch_id = new_id("msgbatch_")
    batch: dict[str, Any] = {
        "id": batch_id,
        "status": "in_progress",
        "created_at": datetime.now(UTC),
        "ended_at": None,
        "cancel_initiated_at": None,
        "polls": 0,
        "results": core.shuffled(lines),
    }
    with core.lock:
        core.anthropic_batches[batch_id] = batch
    return json_reply(_view(batch, base_url), generations=succeeded)


def _poll(core: Core, batch_id: str) -> dict[str, Any] | None:
    with core.lock:
        batch = core.anthropic_batches.get(batch_id)
        if batch is None:
            return None
        batch["polls"] += 1
        if batch["ended_at"] is None and batch["polls"] >= core.config.batch_ready_after_polls:
            batch["ended_at"] = datetime.now(UTC)
        return batch


def retrieve_batch(core: Core, batch_id: str, base_url: str) -> Reply:
    """GET /v1/messages/batches/{id}: each call is one poll."""
    batch = _poll(core, batch_id)
    return _not_found(batch_id) if batch is None else json_reply(_view(batch, base_url))


def batch_results(core: Core, batch_id: str) -> Reply:
    """GET /v1/messages/batches/{id}/results: JSONL, once the batch has ended."""
    with core.lock:
        batch = core.anthropic_batches.get(batch_id)
        lines = list(batch["results"]) if batch is not None else []
        ended = batch is not None and batch["ended_at"] is not None
    if batch is None:
        return _not_found(batch_id)
    if not ended:
        return error_reply(400, "invalid_request_error", "Batch results are not ready yet")
    body = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
    return Reply(body=body.encode("utf-8"), content_type="application/binary")


def cancel_batch(core: Core, batch_id: str, base_url: str) -> Reply:
    """POST /v1/messages/batches/{id}/cancel: entries not yet ended become canceled."""
    with core.lock:
        batch = core.anthropic_batches.get(batch_id)
        if batch is not None and batch["ended_at"] is None:
            now = datetime.now(UTC)
            batch["cancel_initiated_at"] = batch["ended_at"] = now
            batch["results"] = [
                {"custom_id": line["custom_id"], "result": {"type": "canceled"}}
                for line in batch["results"]
            ]
    return _not_found(batch_id) if batch is None else json_reply(_view(batch, base_url))


def list_batches(core: Core, base_url: str) -> Reply:
    """GET /v1/messages/batches: every batch, newest first, in one page."""
    with core.lock:
        batches = list(core.anthropic_batches.values())
    views = [_view(b, base_url) for b in reversed(batches)]
    first = views[0]["id"] if views else None
    last = views[-1]["id"] if views else None
    return json_reply({"data": views, "has_more": False, "first_id": first, "last_id": last})
