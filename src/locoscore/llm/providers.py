"""LLM providers through the official async SDKs: what each accepts, and one call.

Shared by the judge (structured verdicts) and the answerer (free text).

Sampling parameters are requests a provider may refuse. `resolve_sampling` knows, per
provider, model and API version, whether a temperature can be sent at all, and returns
the plan actually applied; the signature of every result is built from that plan.

Retries: the SDK clients are built with `max_retries=0`; the runner owns the one retry
layer (it must see every 429 to adapt its concurrency).
"""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from locoscore.errors import InputError
from locoscore.llm.call_errors import API_KEY_ENV
from locoscore.llm.choices import ChoicesRefused, refused_choices
from locoscore.llm.endpoint import WireLog, safe_model_name
from locoscore.llm.response_format import (
    RESPONSE_FORMATS,
    ResponseFormatDowngraded,
    rejects_response_format,
)

PROVIDERS: tuple[str, ...] = ("anthropic", "openai", "openai-compatible")
DEFAULT_MODELS = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-4o-mini"}
# The API version the anthropic SDK 2.x sends by default: it accepts no sampling params.
ANTHROPIC_SDK_API_VERSION = "2026-10-21"
# The older API version under which `temperature` is still accepted for most models.
ANTHROPIC_LEGACY_API_VERSION = "2023-06-01"
# Models that reject `temperature` under every API version.
_ANTHROPIC_NO_TEMPERATURE = re.compile(r"^claude-(?:opus-4-[78]|[a-z]+-5)(?:$|[-@.])")
# OpenAI reasoning models accept only their default sampling.
_OPENAI_NO_TEMPERATURE = re.compile(r"^(?:o\d|gpt-5)")
# Key-shaped tokens (sk-ant-..., sk-proj-..., masked sk-...****abcd) and bearer credentials.


class SamplingNotSupported(InputError):
    """The requested sampling cannot be sent to this provider/model/API version."""


@dataclass(frozen=True)
class SamplingPlan:
    """The sampling actually applied. `temperature=None` means the model's own default."""

    temperature: float | None
    api_version: str | None = None  # anthropic-version header sent (anthropic only)

    @property
    def signature(self) -> str:
        temp = "model-default" if self.temperature is None else f"{self.temperature:g}"
        api = f"|api:{self.api_version}" if self.api_version else ""
        return f"temp:{temp}{api}"

    def cache_params(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "api_version": self.api_version}


def resolve_sampling(
    provider: str,
    model: str,
    temperature: float,
    *,
    use_model_default: bool = False,
    api_version: str | None = None,
) -> SamplingPlan:
    """What to send for `temperature`, or SamplingNotSupported naming the choices."""
    if provider == "anthropic":
        version = api_version or None
        if use_model_default:
            return SamplingPlan(None, version or ANTHROPIC_SDK_API_VERSION)
        if _ANTHROPIC_NO_TEMPERATURE.match(model):
            raise SamplingNotSupported(
                f"model {model} rejects temperature under every API version; choices: "
                f"--sampling default (use the model's own sampling, recorded as "
                f"temp:model-default), or a model that accepts it such as claude-sonnet-4-6"
            )
        if version is not None and version >= ANTHROPIC_SDK_API_VERSION:
            raise SamplingNotSupported(
                f"anthropic-version {version} accepts no temperature; choices: omit "
                f"--api-version (locoscore then sends temperature {temperature:g} with "
                f"anthropic-version {ANTHROPIC_LEGACY_API_VERSION}), or --sampling default"
            )
        return SamplingPlan(temperature, version or ANTHROPIC_LEGACY_API_VERSION)
    if use_model_default:
        return SamplingPlan(None)
    if provider == "openai" and _OPENAI_NO_TEMPERATURE.match(model):
        raise SamplingNotSupported(
            f"model {model} accepts only its default sampling; choices: --sampling default, "
            f"or a model that accepts temperature such as gpt-4o-mini"
        )
    return SamplingPlan(temperature)


@dataclass(frozen=True)
class ProviderConfig:
    provider: str
    model: str
    sampling: SamplingPlan
    # The JSON schema replies must fill (structured output), or None for free text.
    output_schema: dict[str, Any] | None = None
    schema_name: str = "reply"
    max_tokens: int = 256
    base_url: str | None = None
    timeout_s: float = 60.0
    # Calls in flight at most: idle connections kept open for reuse (the SDKs keep 100).
    concurrency: int = 100
    # A structured-output mode forced by the user (one of RESPONSE_FORMATS): sent as is and
    # never negotiated. None: the strictest mode, downgraded once if the server rejects it.
    response_format: str | None = None
    # This endpoint's own key (a pool's member with `key_env`); None: the provider's variable.
    api_key: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Reply:
    """One model reply (one choice of a response)."""

    text: str
    structured: dict[str, Any] | None
    stop_reason: str | None
    raw: str
    input_tokens: int = 0
    output_tokens: int = 0
    refusal: bool = False
    truncated: bool = False
    served_s: float | None = None  # the server's own serving time (llama.cpp `timings`)
    usage_reported: bool = True  # False: the server sent no usage (tokens to count locally)
    model: str | None = None  # what the server said it served (the reply's `model`)
    fake: bool = False  # the server marked itself as locoscore's fake provider
    # Of input_tokens (every prompt token), those read from / written to the prompt cache.
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


def http_client(sdk: Any, config: ProviderConfig, wire: WireLog) -> Any:
    """The SDK's httpx client, with our connection limits and a hook that reads every
    response's headers (the fake provider's mark)."""
    return sdk.DefaultAsyncHttpxClient(
        limits=connection_limits(config), event_hooks={"response": [wire.on_response]}
    )


def connection_limits(config: ProviderConfig) -> Any:
    """The SDKs' connection limits, with at least one idle connection kept per call in
    flight: fewer makes a busy pool close and reopen connections."""
    import httpx

    return httpx.Limits(
        max_connections=max(1000, config.concurrency),
        max_keepalive_connections=max(100, config.concurrency),
        keepalive_expiry=5.0,
    )


def api_key(provider: str) -> str:
    if provider == "openai-compatible":
        # Local servers (vLLM, Ollama, llama.cpp) usually need no key.
        return os.environ.get("OPENAI_API_KEY") or "not-needed"
    env = API_KEY_ENV[provider]
    value = os.environ.get(env)
    if not value:
        raise InputError(f"{env} is not set: calls to {provider} need an API key")
    return value


def _served_model(body: dict[str, Any]) -> str | None:
    model = body.get("model")
    return safe_model_name(model) if isinstance(model, str) and model.strip() else None


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


class AnthropicClient:
    """Messages API, structured output via `output_config` JSON schema."""

    supports_n = False
    response_format = "json_schema"  # output_config.format; never downgraded

    def __init__(self, config: ProviderConfig) -> None:
        self.config = config
        self.wire = WireLog()
        headers = {}
        if config.sampling.api_version and config.sampling.api_version != (
            ANTHROPIC_SDK_API_VERSION
        ):
            headers["anthropic-version"] = config.sampling.api_version
        import anthropic  # the SDKs load only when a judge runs (1.4 s of imports)

        self.client = anthropic.AsyncAnthropic(
            api_key=config.api_key or api_key("anthropic"),
            base_url=config.base_url,
            max_retries=0,
            timeout=config.timeout_s,
            default_headers=headers or None,
            http_client=http_client(anthropic, config, self.wire),
        )

    def request_params(self, prompt: str, cache_prefix: str | None = None) -> dict[str, Any]:
        """The Messages request body (also one Message Batches entry). With `cache_prefix`
        (a leading part of `prompt`), that part goes in its own block marked for caching."""
        from locoscore.llm.prompt_cache import split_at_prefix

        content: Any = prompt
        blocks = split_at_prefix(prompt, cache_prefix) if cache_prefix else None
        if blocks is not None:
            content = [
                {"type": "text", "text": blocks[0], "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": blocks[1]},
            ]
        params: dict[str, Any] = {
            "model": self.config.model,
            "max_tokens": self.config.max_tokens,
            "messages": [{"role": "user", "content": content}],
        }
        if self.config.output_schema is not None:
            params["output_config"] = {
                "format": {"type": "json_schema", "schema": self.config.output_schema}
            }
        if self.config.sampling.temperature is not None:
            params["temperature"] = self.config.sampling.temperature
        return params

    async def complete(
        self, prompt: str, n: int = 1, cache_prefix: str | None = None
    ) -> list[Reply]:
        params = self.request_params(prompt, cache_prefix)
        extra = {}
        if "temperature" in params:
            # SDK 2.x has no temperature argument; older API versions accept it in the body.
            extra["temperature"] = params.pop("temperature")
        message = await self.client.messages.create(**params, extra_body=extra or None)
        return [reply_from_anthropic(message.model_dump(mode="json"), fake=self.wire.fake)]

    async def aclose(self) -> None:
        await self.client.close()


def reply_from_anthropic(body: dict[str, Any], *, fake: bool = False) -> Reply:
    text_parts: list[str] = []
    structured: dict[str, Any] | None = None
    for block in body.get("content") or []:
        if block.get("type") == "text":
            text_parts.append(block.get("text") or "")
        elif block.get("type") == "tool_use" and isinstance(block.get("input"), dict):
            structured = block["input"]
    text = "".join(text_parts)
    stop = body.get("stop_reason")
    truncated = stop == "max_tokens"
    if structured is None and not truncated:
        structured = _json_object(text.strip())
    usage = body.get("usage") or {}
    # Anthropic's input_tokens leaves out the cached parts: every prompt token is the sum.
    written = int(usage.get("cache_creation_input_tokens") or 0)
    read = int(usage.get("cache_read_input_tokens") or 0)
    return Reply(
        text=text,
        structured=structured,
        stop_reason=stop,
        raw=json.dumps(body, ensure_ascii=False),
        input_tokens=int(usage.get("input_tokens") or 0) + written + read,
        output_tokens=int(usage.get("output_tokens") or 0),
        refusal=stop == "refusal",
        truncated=truncated,
        model=_served_model(body),
        fake=fake,
        cache_read_tokens=read,
        cache_write_tokens=written,
    )


class OpenAIClient:
    """Chat Completions with a `json_schema` response format; `n` serves several runs.

    For `openai-compatible` servers the format is negotiated: a 400 saying it is unsupported
    moves the client (once, for every later call of the pass) to the next of
    RESPONSE_FORMATS. The OpenAI API itself supports json_schema, so a 400 there stays an
    error.
    """

    def __init__(self, config: ProviderConfig, *, supports_n: bool = True) -> None:
        self.config = config
        self.wire = WireLog()
        self.supports_n = supports_n
        # The most choices a request may ask for, once a server refused more (None: any).
        self.max_n: int | None = None
        self.response_format = config.response_format or RESPONSE_FORMATS[0]
        self._format_lock = threading.Lock()
        import openai

        self.client = openai.AsyncOpenAI(
            api_key=config.api_key or api_key(config.provider),
            base_url=config.base_url,
            max_retries=0,
            timeout=config.timeout_s,
            http_client=http_client(openai, config, self.wire),
        )

    def request_params(
        self, prompt: str, n: int = 1, response_format: str | None = None
    ) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.config.model,
            "messages": [{"role": "user", "content": prompt}],
        }
        mode = response_format or self.response_format
        if self.config.output_schema is None:
            mode = "none"  # free text: no response format to send or negotiate
        if mode == "json_schema":
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": self.config.schema_name,
                    "schema": self.config.output_schema,
                    "strict": True,
                },
            }
        elif mode == "json_object":
            params["response_format"] = {"type": "json_object"}
        # OpenAI's reasoning models refuse `max_tokens` (400) and every current OpenAI model
        # takes `max_completion_tokens`; compatible servers (vLLM, Ollama, llama.cpp) may
        # know only `max_tokens`.
        limit = "max_completion_tokens" if self.config.provider == "openai" else "max_tokens"
        params[limit] = self.config.max_tokens
        if self.config.sampling.temperature is not None:
            params["temperature"] = self.config.sampling.temperature
        if n > 1:
            params["n"] = n
        return params

    def downgrade_response_format(self, rejected: str) -> bool:
        """Move past `rejected` unless another call already did; False when no mode is left
        to try (or the provider is not a compatible server)."""
        if self.config.provider != "openai-compatible" or rejected not in RESPONSE_FORMATS:
            return False
        if self.config.response_format is not None:
            return False  # forced with --response-format: the user's choice stands
        with self._format_lock:
            if self.response_format == rejected and rejected != RESPONSE_FORMATS[-1]:
                self.response_format = RESPONSE_FORMATS[RESPONSE_FORMATS.index(rejected) + 1]
            return self.response_format != rejected

    async def complete(
        self, prompt: str, n: int = 1, cache_prefix: str | None = None
    ) -> list[Reply]:
        """`cache_prefix` is unused: OpenAI and compatible servers cache a stable prefix
        without being asked."""
        import openai

        mode = self.response_format  # what this request sends, whatever others do meanwhile
        try:
            completion = await self.client.chat.completions.create(
                **self.request_params(prompt, n, mode)
            )
        except openai.APIStatusError as exc:  # whatever the status: read from the body
            if rejects_response_format(exc.status_code, exc.body) and (
                self.downgrade_response_format(mode)
            ):
                raise ResponseFormatDowngraded(mode, self.response_format) from None
            limit = refused_choices(exc.status_code, exc.body, n)
            if limit is not None:
                with self._format_lock:
                    self.max_n = min(limit, self.max_n or limit)
                raise ChoicesRefused(n, self.max_n) from None
            raise
        return replies_from_openai(completion.model_dump(mode="json"), fake=self.wire.fake)

    async def aclose(self) -> None:
        await self.client.close()


def replies_from_openai(body: dict[str, Any], *, fake: bool = False) -> list[Reply]:
    choices = body.get("choices") or []
    usage = body.get("usage") or {}
    prompt_tokens = int(usage.get("prompt_tokens") or 0)
    completion_tokens = int(usage.get("completion_tokens") or 0)
    details = usage.get("prompt_tokens_details")
    cached = int((details.get("cached_tokens") or 0) if isinstance(details, dict) else 0)
    raw = json.dumps(body, ensure_ascii=False)
    served = _served_s(body.get("timings"))
    replies = []
    for i, choice in enumerate(choices):
        message = choice.get("message") or {}
        text = message.get("content") or ""
        finish = choice.get("finish_reason")
        refused = bool(message.get("refusal")) or finish == "content_filter"
        truncated = finish == "length"
        replies.append(
            Reply(
                text=text,
                structured=None if truncated else _json_object(text.strip()),
                stop_reason=finish,
                raw=raw if len(choices) == 1 else json.dumps(choice, ensure_ascii=False),
                # The prompt is billed once per request: charge it to the first choice.
                input_tokens=prompt_tokens if i == 0 else 0,
                output_tokens=completion_tokens // len(choices)
                + (completion_tokens % len(choices) if i == 0 else 0),
                refusal=refused,
                truncated=truncated,
                served_s=served,
                usage_reported=bool(body.get("usage")),
                model=_served_model(body),
                fake=fake,
                cache_read_tokens=cached if i == 0 else 0,
            )
        )
    return replies


def _served_s(timings: Any) -> float | None:
    """llama.cpp's `timings`: prompt and generation milliseconds (time queued excluded)."""
    if not isinstance(timings, dict):
        return None
    prompt_ms, predicted_ms = timings.get("prompt_ms"), timings.get("predicted_ms")
    if not isinstance(prompt_ms, int | float) or not isinstance(predicted_ms, int | float):
        return None
    return (prompt_ms + predicted_ms) / 1000.0


LLMClient = AnthropicClient | OpenAIClient


def make_client(config: ProviderConfig) -> LLMClient:
    if config.provider == "anthropic":
        return AnthropicClient(config)
    if config.provider in ("openai", "openai-compatible"):
        return OpenAIClient(config)
    raise InputError(f"unknown provider {config.provider!r} (expected {', '.join(PROVIDERS)})")
