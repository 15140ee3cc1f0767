"""OpenAI Files and Batch: upload a JSONL file, create a batch over it, poll until completed,
download the output and error files. Lines are judged at creation; the batch completes after
N status polls."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from locoscore.testing._core import Core, Reply, json_reply, new_id
from locoscore.testing._openai_wire import batch_line_response, error_reply

BATCH_ENDPOINT = "/v1/chat/completions"


def parse_multipart(raw: bytes, content_type: str) -> dict[str, tuple[str | None, bytes]]:
    """Form fields of a multipart/form-data body: name -> (filename, data)."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + raw)
    fields: dict[str, tuple[str | None, bytes]] = {}
    if not message.is_multipart():
        return fields
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name:
            data = part.get_payload(decode=True)
            fields[str(name)] = (part.get_filename(), data if isinstance(data, bytes) else b"")
    return fields


def _file_object(record: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": record["id"],
        "object": "file",
        "bytes": len(record["data"]),
        "created_at": record["created_at"],
        "filename": record["filename"],
        "purpose": record["purpose"],
        "status": "processed",
        "expires_at": None,
        "status_details": None,
    }


def _store_file(core: Core, data: bytes, filename: str, purpose: str) -> str:
    file_id = new_id("file-")
    record = {
        "id": file_id,
        "data": data,
        "filename": filename,
        "purpose": purpose,
        "created_at": int(time.time()),
    }
    with core.lock:
        core.files[file_id] = record
    return file_id


def upload_file(core: Core, raw: bytes, content_type: str) -> Reply:
    """POST /v1/files (multipart: purpose, file)."""
    if not content_type.startswith("multipart/form-data"):
        return error_reply(400, "expected multipart/form-data", "invalid_request_error")
    fields = parse_multipart(raw, content_type)
    if "file" not in fields:
        return error_reply(400, "file is required", "invalid_request_error", param="file")
    purpose = fields.get("purpose", (None, b""))[1].decode("utf-8", "replace")
    if purpose != "batch":
        message = "this fake provider accepts only purpose=batch"
        return error_reply(400, message, "invalid_request_error", param="purpose")
    filename, data = fields["file"]
    file_id = _store_file(core, data, filename or "upload.jsonl", purpose)
    with core.lock:
        record = core.files[file_id]
    return json_reply(_file_object(record))


def _file_record(core: Core, file_id: str) -> dict[str, Any] | None:
    with core.lock:
        return core.files.get(file_id)


def retrieve_file(core: Core, file_id: str) -> Reply:
    """GET /v1/files/{id}."""
    record = _file_record(core, file_id)
    if record is None:
        return error_reply(404, f"No such File object: {file_id}", "invalid_request_error")
    return json_reply(_file_object(record))


def file_content(core: Core, file_id: str) -> Reply:
    """GET /v1/files/{id}/content."""
    record = _file_record(core, file_id)
    if record is None:
        return error_reply(404, f"No such File object: {file_id}", "invalid_request_error")
    return Reply(body=record["data"], content_type="application/octet-stream")


def _judge_lines(core: Core, data: bytes) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Output-file and error-file lines of every request line, shuffled like the real API."""
    outputs: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    for number, text in enumerate(data.decode("utf-8").splitlines(), start=1):
        if not text.strip():
            continue
        line = json.loads(text)
        if not isinstance(line, Mapping) or line.get("url") != BATCH_ENDPOINT:
            raise ValueError(f"line {number}: url must be {BATCH_ENDPOINT}")
        custom_id = line.get("custom_id")
        entry: dict[str, Any] = {"id": new_id("batch_req_"), "custom_id": custom_id}
        answer = batch_line_response(core, line.get("body"))
        if answer is None:
            message = "The request was not run before the completion window expired."
            expired = {"code": "batch_expired", "message": message}
            errors.append({**entry, "response": None, "error": expired})
            continue
        status, body = answer
        response = {"status_code": status, "request_id": new_id("req_"), "body": body}
        target = outputs if status == 200 else errors
        target.append({**entry, "response": response, "error": None})
    return core.shuffled(outputs), core.shuffled(errors)


def create_batch(core: Core, body: Any) -> Reply:
    """POST /v1/batches."""
    if not isinstance(body, Mapping):
        return error_reply(400, "request body must be a JSON object", "invalid_request_error")
    if body.get("endpoint") != BATCH_ENDPOINT:
        message = f"this fake provider batches only {BATCH_ENDPOINT}"
        return error_reply(400, message, "invalid_request_error", param="endpoint")
    record = _file_record(core, str(body.get("input_file_id")))
    if record is None:
        message = f"No such File object: {body.get('input_file_id')}"
        return error_reply(404, message, "invalid_request_error", param="input_file_id")
    try:
        outputs, errors = _judge_lines(core, record["data"])
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
        return error_reply(400, f"invalid batch input file: {exc}", "invalid_request_error")
    now = int(time.time())
    batch = {
        "id": new_id("batch_"),
        "object": "batch",
        "endpoint": BATCH_ENDPOINT,
        "input_file_id": record["id"],
        "completion_window": body.get("completion_window", "24h"),
        "created_at": now,
        "expires_at": now + 24 * 3600,
        "metadata": body.get("metadata"),
        "polls": 0,
        "outputs": outputs,
        "errors": errors,
        "output_file_id": None,
        "error_file_id": None,
        "completed_at": None,
    }
    with core.lock:
        core.openai_batches[batch["id"]] = batch
    generations = sum(len(o["response"]["body"]["choices"]) for o in outputs)
    return json_reply(_view(batch, "validating"), generations=generations)


def _view(batch: Mapping[str, Any], status: str) -> dict[str, Any]:
    total = len(batch["outputs"]) + len(batch["errors"])
    done = status == "completed"
    hidden = {"polls", "outputs", "errors"}
    return {
        **{k: v for k, v in batch.items() if k not in hidden},
        "status": status,
        "errors": None,
        "in_progress_at": batch["created_at"],
        "request_counts": {
            "total": total,
            "completed": len(batch["outputs"]) if done else 0,
            "failed": len(batch["errors"]) if done else 0,
        },
    }


def retrieve_batch(core: Core, batch_id: str) -> Reply:
    """GET /v1/batches/{id}: each call is one poll; the output files appear on completion."""
    with core.lock:
        batch = core.openai_batches.get(batch_id)
        if batch is not None:
            batch["polls"] += 1
            ready = batch["polls"] >= core.config.batch_ready_after_polls
    if batch is None:
        return error_reply(404, f"No such Batch object: {batch_id}", "invalid_request_error")
    if not ready:
        return json_reply(_view(batch, "in_progress"))
    if batch["completed_at"] is None:
        _finish(core, batch)
    return json_reply(_view(batch, "completed"))


def _finish(core: Core, batch: dict[str, Any]) -> None:
    def jsonl(lines: list[dict[str, Any]]) -> bytes:
        return "".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines).encode()

    output_id = _store_file(core, jsonl(batch["outputs"]), "batch_output.jsonl", "batch_output")
    error_id = (
        _store_file(core, jsonl(batch["errors"]), "batch_errors.jsonl", "batch_output")
        if batch["errors"]
        else None
    )
    with core.lock:
        if batch["completed_at"] is None:
            batch["output_file_id"], batch["error_file_id"] = output_id, error_id
            batch["completed_at"] = int(time.time())
