"""The Anthropic Messages wire format: request checks the real API makes (sampling
parameters per `anthropic-version` and model, prefill), replies in the structured form the
request asked for, and Anthropic error bodies."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from locoscore.testing._core import Core, FakeConfig, Reply, json_reply, new_id, retry_after_headers
from locoscore.testing._verdicts import (
    BATCH_ONLY_FAULTS,
    Verdict,
    all_text,
    content_fault,
    content_text,
    estimate_tokens,
    fill_schema,
    plain_json,
    prose,
    truncate,
    user_text,
)

# The first API version without sampling parameters (what anthropic SDK 2.x sends).
NO_SAMPLING_VERSION = "2026-10-21"
SAMPLING_PARAMETERS = ("temperature", "top_p", "top_k")
_GEN_4_6 = re.compile(r"^claude-[a-z0-9]+-4-6(?:$|-)")
_GENERATION = re.compile(r"^claude-[a-z0-9]+-(\d+)(?:$|-)")
REFUSAL_TEXT = "I can't help with grading this."

# Error type and message of each fault answered with an error status.
FAULT_ERRORS: dict[str, tuple[int, str, str]] = {
    "429": (429, "rate_limit_error", "Rate limit exceeded (fake provider, injected fault)."),
    "quota": (
        429,
        "billing_error",
        "Your credit balance is too low to access the API (fake provider, injected fault).",
    ),
    "500": (500, "api_error", "Internal server error (fake provider, injected fault)."),
    "503": (503, "api_error", "Service unavailable (fake provider, injected fault)."),
    "529": (529, "overloaded_error", "Overloaded (fake provider, injected fault)."),
    "timeout": (500, "api_error", "The request timed out (fake provider, injected fault)."),
    "drop": (500, "api_error", "The connection was lost (fake provider, injected fault)."),
}


def error_body(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}


def error_reply(
    status: int, error_type: str, message: str, headers: dict[str, str] | None = None
) -> Reply:
    payload = {**error_body(error_type, message), "request_id": new_id("req_")}
    return json_reply(payload, status, headers)


def fault_reply(fault: str, headers: dict[str, str]) -> Reply:
    status, error_type, message = FAULT_ERRORS[fault]
    return error_reply(status, error_type, message, headers)


def is_model(model: str, names: tuple[str, ...]) -> bool:
    """`claude-opus-4-7` names the model and its dated snapshots."""
    return any(model == name or model.startswith(name + "-") for name in names)


def _rejects_temperature(model: str, config: FakeConfig) -> bool:
    if is_model(model, config.anthropic_no_temperature_models):
        return True
    generation = _GENERATION.match(model)
    if generation is None:
        return False
    return int(generation[1]) in config.anthropic_no_temperature_generations


def check_params(body: Any, version: str | None, config: FakeConfig) -> str | None:
    """Why the real API would answer 400 to this request, or None."""
    if not version:
        return "anthropic-version: header is required"
    if not isinstance(body, Mapping):
        return "request body must be a JSON object"
    model = body.get("model")
    if not isinstance(model, str) or not model:
        return "model: field required"
    max_tokens = body.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        return "max_tokens: must be a positive integer"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    if body.get("stream"):
        return "stream: the fake provider does not stream; send stream=false"
    sampling = [name for name in SAMPLING_PARAMETERS if name in body]
    if sampling and version >= NO_SAMPLING_VERSION:
        return f"{sampling[0]}: not a parameter of anthropic-version {version}"
    if "temperature" in body and _rejects_temperature(model, config):
        return "temperature is deprecated for this model"
    temperature = body.get("temperature")
    if temperature is not None and not (
        isinstance(temperature, int | float) and 0.0 <= temperature <= 1.0
    ):
        return "temperature: must be a number between 0 and 1"
    is_4_6 = bool(_GEN_4_6.match(model))
    if is_4_6 and "temperature" in body and "top_p" in body:
        return "`temperature` and `top_p` cannot both be specified for this model"
    last = messages[-1]
    if is_4_6 and isinstance(last, Mapping) and last.get("role") == "assistant":
        return (
            "This model does not support assistant message prefill; "
            "the conversation must end with a user message"
        )
    output_format = _output_format(body)
    if output_format is not None and not isinstance(output_format.get("schema"), Mapping):
        return "output_config.format.schema: a JSON schema object is required"
    if output_format is not None:
        unsupported = unsupported_schema_keyword(output_format["schema"])
        if unsupported is not None:
            kind, keyword = unsupported
            return (
                f"output_config.format.schema: For '{kind}' type, property '{keyword}' "
                "is not supported"
            )
    marks = [
        block.get("cache_control")
        for blocks in [
            body.get("system"),
            *(m.get("content") for m in messages if isinstance(m, Mapping)),
        ]
        if isinstance(blocks, list)
        for block in blocks
        if isinstance(block, Mapping) and "cache_control" in block
    ]
    if len(marks) > 4:
        return "A maximum of 4 blocks with cache_control may be provided"
    if any(not isinstance(m, Mapping) or m.get("type") != "ephemeral" for m in marks):
        return "cache_control.type: Input should be 'ephemeral'"
    choice = body.get("tool_choice")
    if isinstance(choice, Mapping) and choice.get("type") == "tool":
        names = [t.get("name") for t in body.get("tools") or [] if isinstance(t, Mapping)]
        if choice.get("name") not in names:
            return f"tool_choice: no tool named {choice.get('name')!r} in tools"
    return None


# Constraints Claude's structured outputs refuse (the real API answers 400 to them).
UNSUPPORTED_SCHEMA_KEYWORDS = {
    "integer": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "string": ("minLength", "maxLength"),
}


def unsupported_schema_keyword(schema: Any, depth: int = 0) -> tuple[str, str] | None:
    """The first (type, keyword) in a schema that structured outputs refuse, or None."""
    if isinstance(schema, list):
        for item in schema:
            found = unsupported_schema_keyword(item, depth + 1)
            if found is not None:
                return found
        return None
    if not isinstance(schema, Mapping) or depth > 30:
        return None
    kind = schema.get("type")
    for keyword in UNSUPPORTED_SCHEMA_KEYWORDS.get(kind if isinstance(kind, str) else "", ()):
        if keyword in schema:
            return str(kind), keyword
    for value in schema.values():
        if isinstance(value, Mapping | list):
            found = unsupported_schema_keyword(value, depth + 1)
            if found is not None:
                return found
    return None


def _output_format(body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    config = body.get("output_config")
    if isinstance(config, Mapping):
        fmt = config.get("format")
        if isinstance(fmt, Mapping) and fmt.get("type") == "json_schema":
            return fmt
    return None


def _chosen_tool(body: Mapping[str, Any], forced_only: bool) -> Mapping[str, Any] | None:
    tools = [t for t in body.get("tools") or [] if isinstance(t, Mapping) and "input_schema" in t]
    choice = body.get("tool_choice")
    kind = choice.get("type") if isinstance(choice, Mapping) else "auto"
    if not tools or kind == "none" or (forced_only and kind not in ("tool", "any")):
        return None
    if kind == "tool" and isinstance(choice, Mapping):
        return next((t for t in tools if t.get("name") == choice.get("name")), None)
    return tools[0]


def message_payload(
    body: Mapping[str, Any],
    verdict: Verdict,
    fault: str | None,
    service_tier: str,
    core_answer: Callable[[str], str] | None = None,
) -> dict[str, Any]:
    """A Messages API reply carrying the verdict in the form the request asked for."""
    prompt = "\n".join([content_text(body.get("system")), user_text(body.get("messages"))])
    max_tokens = int(body["max_tokens"])
    tool = _chosen_tool(body, forced_only=True)
    output_format = _output_format(body)
    if tool is None and output_format is None:
        tool = _chosen_tool(body, forced_only=False)

    content: list[dict[str, Any]] = []
    stop_reason = "end_turn"
    extra: dict[str, Any] = {}
    if fault == "empty":
        pass
    elif fault == "refusal":
        content = [{"type": "text", "text": REFUSAL_TEXT}]
        stop_reason = "refusal"
        extra["stop_details"] = {"type": "refusal", "category": None, "explanation": None}
    elif fault == "bad_json":
        content = [{"type": "text", "text": prose(verdict)}]
    elif tool is not None:
        tool_input = fill_schema(tool["input_schema"], verdict)
        stop_reason = "tool_use"
        if fault == "truncation":
            tool_input, stop_reason = {}, "max_tokens"
        block = {"type": "tool_use", "id": new_id("toolu_"), "name": tool["name"]}
        content = [{**block, "input": tool_input}]
    else:
        if output_format is not None:
            text = json.dumps(fill_schema(output_format["schema"], verdict))
        elif core_answer is not None:
            text = core_answer(prompt)
        else:
            text = plain_json(verdict, prompt)
        if fault == "truncation":
            text, stop_reason = truncate(text), "max_tokens"
        elif estimate_tokens(text) > max_tokens:
            text, stop_reason = text[: max_tokens * 4], "max_tokens"
        content = [{"type": "text", "text": text}]

    shown = json.dumps(content) if content else ""
    output_tokens = 0 if not content else min(max_tokens, estimate_tokens(shown))
    if stop_reason == "max_tokens":
        output_tokens = max_tokens
    input_text = all_text(body.get("messages"), body.get("system"))
    return {
        "id": new_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        **extra,
        "usage": {
            "input_tokens": estimate_tokens(input_text),
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "service_tier": service_tier,
        },
    }


def _rate_headers(core: Core) -> dict[str, str]:
    state = core.rate_state()
    if state is None:
        return {}
    reset = datetime.now(UTC) + timedelta(seconds=state.reset_s)
    return {
        "anthropic-ratelimit-requests-limit": str(state.limit),
        "anthropic-ratelimit-requests-remaining": str(state.remaining),
        "anthropic-ratelimit-requests-reset": reset.isoformat(timespec="seconds"),
    }


def handle_message(core: Core, body: Any, headers: Mapping[str, str]) -> Reply:
    """POST /v1/messages."""
    config = core.config
    problem = check_params(body, headers.get("anthropic-version"), config)
    if problem is not None:
        return error_reply(400, "invalid_request_error", problem)
    wait = core.admit()
    if wait is not None:
        message = "Request rate limit exceeded; wait for the window to move."
        return error_reply(429, "rate_limit_error", message, retry_after_headers(wait))
    read, write, digest = core.prompt_cache.anthropic_lookup(body)
    core.sleep(config.latency_s)
    verdicts, fault = core.decide(user_text(body["messages"]))
    refused = core.live_fault(fault, fault_reply)
    if refused is not None:
        return refused
    payload = message_payload(body, verdicts[0], content_fault(fault), "standard", config.answer)
    payload["model"] = config.served(body["model"])
    usage = payload["usage"]
    usage["input_tokens"] = max(0, usage["input_tokens"] - read - write)
    usage["cache_creation_input_tokens"] = write
    usage["cache_read_input_tokens"] = read
    # the reply is starting: from now on the written prefix can be read
    core.prompt_cache.anthropic_store(digest)
    return core.live_reply(payload, fault, _rate_headers(core), 1)


def batch_entry_result(core: Core, params: Any, version: str | None) -> dict[str, Any]:
    """The result of one Message Batches entry: succeeded, errored or expired."""
    problem = check_params(params, version, core.config)
    if problem is not None:
        return {"type": "errored", "error": error_body("invalid_request_error", problem)}
    verdicts, fault = core.decide(user_text(params["messages"]), batch=True)
    if fault in BATCH_ONLY_FAULTS:
        return {"type": "expired"}
    if fault in FAULT_ERRORS:
        _, error_type, why = FAULT_ERRORS[fault]
        return {"type": "errored", "error": error_body(error_type, why)}
    message = message_payload(params, verdicts[0], content_fault(fault), "batch")
    message["model"] = core.config.served(params["model"])
    return {"type": "succeeded", "message": message}
