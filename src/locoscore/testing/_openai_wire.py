"""The OpenAI Chat Completions wire format: `n` choices, `response_format` JSON, usage, and
OpenAI error bodies."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from locoscore.testing._amem_wire import amem_reply
from locoscore.testing._core import Core, FakeConfig, Reply, json_reply, new_id, retry_after_headers
from locoscore.testing._graphiti_wire import graphiti_reply, is_graphiti_call
from locoscore.testing._langmem_wire import memory_tool_calls
from locoscore.testing._letta_wire import letta_tool_calls
from locoscore.testing._mem0_graph_wire import graph_tool_calls, mem0_v1_reply
from locoscore.testing._mem0_wire import extraction_reply, is_mem0_extraction
from locoscore.testing._verdicts import (
    BATCH_ONLY_FAULTS,
    Verdict,
    all_text,
    content_fault,
    estimate_tokens,
    fill_schema,
    plain_json,
    prose,
    truncate,
    user_text,
)

MAX_CHOICES = 128
REFUSAL_TEXT = "I'm sorry, I can't help with grading this."

# Status, error type, code and message of each fault answered with an error status.
FAULT_ERRORS: dict[str, tuple[int, str, str | None, str]] = {
    "429": (
        429,
        "requests",
        "rate_limit_exceeded",
        "Rate limit reached for requests (fake provider, injected fault).",
    ),
    "quota": (
        429,
        "insufficient_quota",
        "insufficient_quota",
        "You exceeded your current quota; check your plan and billing details "
        "(fake provider, injected fault).",
    ),
    "500": (500, "server_error", None, "Internal server error (fake provider, injected fault)."),
    "503": (503, "server_error", None, "The server is overloaded (fake provider, injected fault)."),
    "529": (529, "server_error", None, "Overloaded (fake provider, injected fault)."),
    "timeout": (500, "server_error", None, "Request timed out (fake provider, injected fault)."),
    "drop": (500, "server_error", None, "Connection lost (fake provider, injected fault)."),
}


def error_body(
    message: str, error_type: str, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    return {"error": {"message": message, "type": error_type, "param": param, "code": code}}


def error_reply(
    status: int,
    message: str,
    error_type: str,
    code: str | None = None,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    return json_reply(error_body(message, error_type, code, param), status, headers)


def fault_reply(fault: str, headers: dict[str, str]) -> Reply:
    status, error_type, code, message = FAULT_ERRORS[fault]
    return error_reply(status, message, error_type, code, headers=headers)


def _no_temperature(model: str, config: FakeConfig) -> bool:
    names = config.openai_no_temperature_models
    return any(model == name or model.startswith(name + "-") for name in names)


def check_params(body: Any, config: FakeConfig) -> tuple[str, str] | None:
    """(parameter, why) the real API would answer 400 to this request, or None."""
    if not isinstance(body, Mapping):
        return "body", "request body must be a JSON object"
    model = body.get("model")
    if not isinstance(model, str) or not model:
        return "model", "you must provide a model parameter"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages", "messages must be a non-empty array"
    if body.get("stream"):
        return "stream", "the fake provider does not stream; send stream=false"
    n = body.get("n", 1)
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_CHOICES:
        return "n", f"n must be an integer between 1 and {MAX_CHOICES}"
    temperature = body.get("temperature")
    if temperature is not None:
        if not isinstance(temperature, int | float) or not 0.0 <= temperature <= 2.0:
            return "temperature", "temperature must be a number between 0 and 2"
        if temperature != 1 and _no_temperature(model, config):
            return (
                "temperature",
                f"Unsupported value: 'temperature' does not support {temperature} with this "
                "model; only the default (1) is supported.",
            )
    response_format = body.get("response_format")
    if response_format is not None:
        kind = response_format.get("type") if isinstance(response_format, Mapping) else None
        if kind not in ("text", "json_object", "json_schema"):
            return "response_format", "type must be text, json_object or json_schema"
        if kind != "text" and kind not in config.openai_response_formats:
            return (
                "response_format",
                f"Invalid parameter: 'response_format' of type '{kind}' is not supported "
                "with this model.",
            )
        if kind == "json_schema":
            spec = response_format.get("json_schema")
            if not isinstance(spec, Mapping) or not isinstance(spec.get("schema"), Mapping):
                return "response_format", "response_format.json_schema.schema is required"
    return None


def _prompt_text(messages: list[Any]) -> str:
    return all_text([m for m in messages if isinstance(m, Mapping)])


def choice_payload(
    body: Mapping[str, Any],
    index: int,
    verdict: Verdict,
    fault: str | None,
    answer: Callable[[str], str] | None = None,
) -> dict[str, Any]:
    """One choice carrying the verdict as the request's response_format asked."""
    message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
    finish_reason = "stop"
    response_format = body.get("response_format")
    kind = response_format.get("type") if isinstance(response_format, Mapping) else "text"
    if fault == "empty":
        message["content"] = ""
    elif fault == "refusal":
        message["refusal"] = REFUSAL_TEXT
    elif fault == "bad_json":
        message["content"] = prose(verdict)
    elif (calls := memory_tool_calls(body)) is not None or (
        calls := letta_tool_calls(body)
    ) is not None:
        message["tool_calls"] = calls
        finish_reason = "tool_calls"
    elif (graph_calls := graph_tool_calls(body)) is not None:
        if graph_calls:
            message["tool_calls"] = graph_calls
            finish_reason = "tool_calls"
        else:  # offered, not called (mem0's delete_graph_memory: nothing is outdated)
            message["content"] = "Nothing to delete."
    else:
        graphiti_step = is_graphiti_call(response_format)
        graphiti_text = graphiti_reply(graphiti_step, body["messages"]) if graphiti_step else None
        if graphiti_text is not None:
            text = graphiti_text
        elif (amem_text := amem_reply(response_format, body["messages"])) is not None:
            text = amem_text
        elif kind == "json_schema" and isinstance(response_format, Mapping):
            schema = response_format["json_schema"]["schema"]
            text = json.dumps(fill_schema(schema, verdict))
        elif kind == "text" and answer is not None:
            text = answer(_prompt_text(body["messages"]))
        elif kind == "json_object" and is_mem0_extraction(body["messages"]):
            text = extraction_reply(body["messages"])
        elif kind == "json_object" and (v1 := mem0_v1_reply(body["messages"])) is not None:
            text = v1
        else:
            text = plain_json(verdict, _prompt_text(body["messages"]))
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        if fault == "truncation":
            text, finish_reason = truncate(text), "length"
        elif isinstance(limit, int) and estimate_tokens(text) > limit:
            text, finish_reason = text[: limit * 4], "length"
        message["content"] = text
    message["annotations"] = []
    return {"index": index, "message": message, "finish_reason": finish_reason, "logprobs": None}


def _output_tokens(message: Mapping[str, Any]) -> int:
    calls = message.get("tool_calls") or []
    text = message["content"] or message["refusal"] or ""
    return estimate_tokens(text) + sum(estimate_tokens(c["function"]["arguments"]) for c in calls)


def completion_payload(
    body: Mapping[str, Any],
    verdicts: list[Verdict],
    fault: str | None,
    answer: Callable[[str], str] | None = None,
) -> dict[str, Any]:
    choices = [choice_payload(body, i, v, fault, answer) for i, v in enumerate(verdicts)]
    output_tokens = sum(_output_tokens(c["message"]) for c in choices)
    input_tokens = estimate_tokens(_prompt_text(body["messages"]))
    return {
        "id": new_id("chatcmpl-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body["model"],
        "choices": choices,
        "usage": {
            "prompt_tokens": input_tokens,
            "completion_tokens": output_tokens,
            "total_tokens": input_tokens + output_tokens,
        },
        "system_fingerprint": "fp_fakeprovider",
        "service_tier": "default",
    }


def _rate_headers(core: Core) -> dict[str, str]:
    state = core.rate_state()
    if state is None:
        return {}
    return {
        "x-ratelimit-limit-requests": str(state.limit),
        "x-ratelimit-remaining-requests": str(state.remaining),
        "x-ratelimit-reset-requests": f"{state.reset_s:.3f}s",
    }


def handle_chat_completion(core: Core, body: Any) -> Reply:
    """POST /v1/chat/completions."""
    config = core.config
    problem = check_params(body, config)
    if problem is not None:
        param, message = problem
        return error_reply(400, message, "invalid_request_error", param=param)
    wait = core.admit()
    if wait is not None:
        message = "Rate limit reached for requests; wait for the window to move."
        return error_reply(
            429, message, "requests", "rate_limit_exceeded", headers=retry_after_headers(wait)
        )
    cached, digests = core.prompt_cache.openai_lookup(
        str(body["model"]), _prompt_text(body["messages"])
    )
    core.sleep(config.latency_s)
    n = int(body.get("n", 1))
    verdicts, fault = core.decide(user_text(body["messages"]), n)
    refused = core.live_fault(fault, fault_reply)
    if refused is not None:
        return refused
    payload = completion_payload(body, verdicts, content_fault(fault), config.answer)
    payload["model"] = config.served(body["model"])
    payload["usage"]["prompt_tokens_details"] = {"cached_tokens": cached}
    core.prompt_cache.openai_store(digests)
    return core.live_reply(payload, fault, _rate_headers(core), n)


def batch_line_response(core: Core, body: Any) -> tuple[int, dict[str, Any]] | None:
    """(status, body) of one OpenAI Batch line's chat completion; None if it expired."""
    problem = check_params(body, core.config)
    if problem is not None:
        param, message = problem
        return 400, error_body(message, "invalid_request_error", param=param)
    n = int(body.get("n", 1))
    verdicts, fault = core.decide(user_text(body["messages"]), n, batch=True)
    if fault in BATCH_ONLY_FAULTS:
        return None
    if fault in FAULT_ERRORS:
        status, error_type, code, message = FAULT_ERRORS[fault]
        return status, error_body(message, error_type, code)
    payload = completion_payload(body, verdicts, content_fault(fault))
    payload["model"] = core.config.served(body["model"])
    return 200, payload
