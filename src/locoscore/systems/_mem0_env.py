"""Importing mem0 so that it stays offline, silent and inside the run folder.

Mem0 reads `MEM0_TELEMETRY` and `MEM0_DIR` once, when it is imported: with the defaults it
sends PostHog events and writes `~/.mem0`. Two environment variables silently reroute its
calls: `OPENROUTER_API_KEY` sends the LLM to OpenRouter, `OPENAI_API_BASE` overrides the
embedder's base URL. So before the first import locoscore turns telemetry off, points the
state folder into the run, and removes those two variables from this process.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
import warnings
from pathlib import Path
from types import ModuleType

from locoscore.errors import InputError

SUPPORTED_SERIES = "2.2."
REROUTING_VARIABLES = {
    "OPENROUTER_API_KEY": "mem0 would send its LLM calls to OpenRouter",
    "OPENAI_API_BASE": "mem0 would send its embedding calls to that URL",
}
INSTALL_HINT = "pip install 'locoscore[mem0]'"


def unset_rerouting_variables() -> list[str]:
    """Remove the variables that reroute mem0's calls; the names that were set."""
    removed = []
    for name, why in REROUTING_VARIABLES.items():
        if os.environ.pop(name, None) is not None:
            removed.append(name)
            warnings.warn(
                f"mem0: unset {name} for this process ({why}, not to the configured provider)",
                stacklevel=3,
            )
    return removed


def import_mem0(state_dir: Path) -> ModuleType:
    """The `mem0` package, imported with telemetry off and its folder in `state_dir`."""
    if "mem0" not in sys.modules:
        state_dir.mkdir(parents=True, exist_ok=True)
        os.environ["MEM0_TELEMETRY"] = "False"
        os.environ["MEM0_DIR"] = str(state_dir)
    try:
        import mem0
        from mem0.memory import telemetry
    except ImportError as exc:
        raise InputError(f"--system mem0 needs the mem0 extra ({INSTALL_HINT}): {exc}") from None
    version = str(getattr(mem0, "__version__", "unknown"))
    if not version.startswith(SUPPORTED_SERIES):
        raise InputError(
            f"--system mem0 drives mem0ai {SUPPORTED_SERIES}x; this environment has {version} "
            f"({INSTALL_HINT})"
        )
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
