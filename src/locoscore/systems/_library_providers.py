"""What the in-process memory libraries (mem0, graphiti, langmem, a-mem) share about their
providers: the options naming the LLM and the embedder, the key, and the start check of the
embedder.

Every library is pointed at OpenAI-compatible servers (OpenAI, or llama.cpp, vLLM, ...):
`llm_model`/`embedder_model` go into the run signature, the URLs and the key's variable do
not (they cannot change what a given model answers)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from locoscore.errors import InputError
from locoscore.systems.options import OptionSpec

OPENAI_URL = "https://api.openai.com/v1"
TIMEOUT_S = 120.0
MAX_RETRIES = 5  # the openai SDK's own backoff, on 408/409/429/5xx and connection errors


def provider_options(
    library: str, dims_help: str, added: str = "sessions"
) -> dict[str, OptionSpec]:
    """The options of a library's providers, its price table and how many `added` units
    (sessions, episodes) are being stored at once across conversations."""
    return {
        "llm_model": OptionSpec(str, "gpt-4o-mini", f"the model {library} extracts memories with"),
        "llm_base_url": OptionSpec(
            str, None, "OpenAI-compatible base URL of that model", in_signature=False
        ),
        "embedder_model": OptionSpec(str, "text-embedding-3-small", f"{library}'s embedding model"),
        "embedder_base_url": OptionSpec(
            str, None, "OpenAI-compatible base URL of the embedder", in_signature=False
        ),
        "embedding_dims": OptionSpec(int, 1536, dims_help),
        "api_key_env": OptionSpec(
            str, "OPENAI_API_KEY", "environment variable holding the API key", in_signature=False
        ),
        "prices": OptionSpec(str, None, "price table JSON for the cost", in_signature=False),
        "ingest_concurrency": OptionSpec(
            int, 4, f"{added} being added at once, across conversations", in_signature=False
        ),
    }


def base_url(options: Mapping[str, Any], key: str) -> str:
    return str(options[key] or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL)


def key_blocker(system: str, options: Mapping[str, Any]) -> str | None:
    """A dry run's reason it cannot ingest: the key is not set (None: it is)."""
    name = options["api_key_env"]
    if os.environ.get(name):
        return None
    return f"{system}'s ingestion calls its LLM and embedder, which need a key in {name}"


def api_key(system: str, options: Mapping[str, Any]) -> str:
    name = options["api_key_env"]
    key = os.environ.get(name)
    if not key:
        raise InputError(f"--system {system}: set {name} (the API key of its LLM and embedder)")
    return key


def openai_client(system: str, options: Mapping[str, Any], url_key: str, http: Any) -> Any:
    """An OpenAI client of the library's LLM or embedder (`url_key`: `llm_base_url` or
    `embedder_base_url`) on `http`, an HTTP client that meters usage; the SDK's own backoff."""
    from openai import OpenAI

    return OpenAI(
        api_key=api_key(system, options),
        base_url=base_url(options, url_key),
        http_client=http,
        max_retries=MAX_RETRIES,
    )


def check_embedder(system: str, options: Mapping[str, Any], client: Any, exact: bool) -> None:
    """One embedding request: the URL, the key, and the vector size (`exact`: it must be
    `embedding_dims`; else at least that many values, which the library keeps)."""
    import openai

    url = base_url(options, "embedder_base_url")
    where = f"--system {system}: embedder {options['embedder_model']} at {url}"
    try:
        reply = client.with_options(max_retries=1).embeddings.create(
            model=options["embedder_model"], input=["locoscore start check"]
        )
    except openai.AuthenticationError:
        raise InputError(f"{where}: the key in {options['api_key_env']} was rejected") from None
    except openai.APIStatusError as exc:
        raise InputError(f"{where}: HTTP {exc.status_code}") from None
    except openai.APIConnectionError:
        raise InputError(f"{where}: unreachable") from None
    size = len(reply.data[0].embedding)
    dims = options["embedding_dims"]
    if size < dims or (exact and size != dims):
        raise InputError(f"{where}: returns {size}-dim vectors; set embedding_dims={size}")
