"""Which systems exist, and building one from `--system NAME --system-option KEY=VALUE`.

Built-in systems are imported lazily (mem0 and the SDKs are heavy or optional); `python:
module:Class` loads a user's class from the current environment. `SystemContext` lives in
`systems.context`; user code that imports it from here keeps working.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from locoscore.errors import InputError
from locoscore.python_spec import PYTHON_PREFIX
from locoscore.systems.base import MemorySystem
from locoscore.systems.context import SystemContext
from locoscore.systems.python_plugin import python_system_class

# name -> "module:Class" under locoscore.systems
BUILTIN_SYSTEMS: dict[str, str] = {
    "full-context": "locoscore.systems.full_context:FullContextSystem",
    "bm25": "locoscore.systems.bm25:BM25System",
    "embedding": "locoscore.systems.embedding:EmbeddingSystem",
    "http": "locoscore.systems.http:HttpSystem",
    "mem0": "locoscore.systems.mem0:Mem0System",
    "graphiti": "locoscore.systems.graphiti:GraphitiSystem",
    "langmem": "locoscore.systems.langmem:LangMemSystem",
    "a-mem": "locoscore.systems.amem:AMemSystem",
    "letta": "locoscore.systems.letta:LettaSystem",
    # reference systems: the floor and the retrieval ceiling (`systems.reference`)
    "no-memory": "locoscore.systems.reference:NoMemorySystem",
    "gold-evidence": "locoscore.systems.reference:GoldEvidenceSystem",
}

# A built-in system's variant that lives in a class of its own, chosen when the option is
# given: `--system mem0 --system-option graph=kuzu` is Mem0g (mem0ai 1.0 in its own environment).
SYSTEM_VARIANTS: dict[tuple[str, str], str] = {
    ("mem0", "graph"): "locoscore.systems.mem0g:Mem0GraphSystem",
}
# Systems run in a pinned environment of their own (`locoscore systems install NAME`):
# name -> "module:ATTRIBUTE" holding its `environments.EnvironmentSpec`.
SYSTEM_ENVIRONMENTS: dict[str, str] = {
    "mem0g": "locoscore.systems.mem0g:ENVIRONMENT",
    "letta": "locoscore.systems._letta_server:ENVIRONMENT",
}


def system_names() -> list[str]:
    return sorted(BUILTIN_SYSTEMS)


def _load_class(target: str, what: str) -> type[MemorySystem]:
    module_name, _, class_name = target.rpartition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError(f"{what}: cannot import module {module_name!r} ({exc})") from None
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise InputError(f"{what}: module {module_name!r} has no class {class_name!r}")
    return cls


def system_class(name: str) -> type[MemorySystem]:
    if name.startswith(PYTHON_PREFIX):
        return python_system_class(name)
    if name in BUILTIN_SYSTEMS:
        return _load_class(BUILTIN_SYSTEMS[name], f"--system {name}")
    known = ", ".join([*system_names(), "python:module:Class"])
    raise InputError(f"--system {name}: unknown system (known: {known})")


def environment_spec(name: str) -> Any:
    """The `EnvironmentSpec` of a system that runs in an environment of its own."""
    if name not in SYSTEM_ENVIRONMENTS:
        known = ", ".join(sorted(SYSTEM_ENVIRONMENTS))
        raise InputError(f"{name}: no system environment of that name (known: {known})")
    module_name, _, attribute = SYSTEM_ENVIRONMENTS[name].rpartition(":")
    return getattr(importlib.import_module(module_name), attribute)


def make_system(name: str, options: Mapping[str, str], context: SystemContext) -> MemorySystem:
    """A ready-to-start system; unknown names and options are InputErrors."""
    variant = next(
        (t for (n, key), t in SYSTEM_VARIANTS.items() if n == name and key in options), None
    )
    cls = _load_class(variant, f"--system {name}") if variant else system_class(name)
    system: Any = cls(dict(options), context)  # type: ignore[call-arg]
    return system
