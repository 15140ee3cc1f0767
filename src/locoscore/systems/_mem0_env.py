"""Importing and configuring mem0 so that it stays offline, silent and inside the run folder.

Mem0 reads `MEM0_TELEMETRY` and `MEM0_DIR` once, when it is imported: with the defaults it
sends PostHog events and writes `~/.mem0`. Two environment variables silently reroute its
calls: `OPENROUTER_API_KEY` sends the LLM to OpenRouter, `OPENAI_API_BASE` overrides the
embedder's base URL. So before the first import locoscore turns telemetry off, points the
state folder into the run, and removes those two variables from this process.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import logging
import os
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

from locoscore.errors import InputError
from locoscore.systems._library_system import library_version

SUPPORTED_SERIES = "2.2."
REROUTING_VARIABLES = {
    "OPENROUTER_API_KEY": "mem0 would send its LLM calls to OpenRouter",
    "OPENAI_API_BASE": "mem0 would send its embedding calls to that URL",
}
INSTALL_HINT = "pip install 'locoscore[mem0]'"
COLLECTION = "locoscore"


def unset_rerouting_variables() -> list[str]:
    """Remove the variables that reroute mem0's calls; the names that were set."""
    removed = []
    for name, why in REROUTING_VARIABLES.items():
        if os.environ.pop(name, None) is not None:
            removed.append(name)
            warnings.warn(
                f"mem0: unset {name} for this process ({why}, not to the configured provider)",
                stacklevel=4,
            )
    return removed


def installed_version() -> str:
    """The installed mem0ai version (read from its metadata: mem0 is not imported yet)."""
    return library_version("mem0", "mem0ai", SUPPORTED_SERIES, INSTALL_HINT)


def import_mem0(state_dir: Path) -> ModuleType:
    """The `mem0` package, imported with telemetry off and its folder in `state_dir`."""
    unset_rerouting_variables()
    if "mem0" not in sys.modules:
        state_dir.mkdir(parents=True, exist_ok=True)
        os.environ["MEM0_TELEMETRY"] = "False"
        os.environ["MEM0_DIR"] = str(state_dir)
    try:
        import mem0
        from mem0.memory import telemetry
    except ImportError as exc:
        raise InputError(f"--system mem0 needs the mem0 extra ({INSTALL_HINT}): {exc}") from None
    if telemetry.MEM0_TELEMETRY:
        # Imported earlier in this process by someone else, with telemetry on.
        raise InputError(
            "mem0 was imported before locoscore could turn its telemetry off; "
            "set MEM0_TELEMETRY=False in the environment"
        )
    # Without mem0's optional NLP packages it logs a warning per store and per search;
    # locoscore states what is off in the run signature instead.
    logging.getLogger("mem0").setLevel(logging.ERROR)
    return mem0


def optional_features() -> dict[str, str]:
    """Mem0 features that depend on optional packages (they change retrieval)."""
    return {
        # fastembed: BM25 keyword scores blended into mem0's ranking.
        "hybrid_search": "on" if importlib.util.find_spec("fastembed") else "off",
        # spaCy: entity extraction and entity boosts at search time.
        "entity_boost": "on" if importlib.util.find_spec("spacy") else "off",
    }


def memory_config(
    *,
    llm: tuple[str, str],
    embedder: tuple[str, str],
    embedding_dims: int,
    api_key: str,
    qdrant_path: str,
    history_db: Path,
) -> dict[str, Any]:
    """`Memory.from_config` input: OpenAI-compatible LLM and embedder (model, base URL), a
    local Qdrant (a folder, or ":memory:") and mem0's SQLite history file."""
    return {
        "llm": {
            "provider": "openai",
            "config": {"model": llm[0], "openai_base_url": llm[1], "api_key": api_key},
        },
        "embedder": {
            "provider": "openai",
            "config": {
                "model": embedder[0],
                "openai_base_url": embedder[1],
                "api_key": api_key,
                "embedding_dims": embedding_dims,
            },
        },
        "vector_store": {
            "provider": "qdrant",
            "config": {
                "collection_name": COLLECTION,
                "embedding_model_dims": embedding_dims,
                "path": qdrant_path,
            },
        },
        "history_db_path": str(history_db),
    }


def close_memory(memory: Any) -> None:
    """Release mem0's SQLite history and the Qdrant client (which locks its folder)."""
    memory.close()
    client = getattr(memory.vector_store, "client", None)
    if client is not None:
        client.close()
