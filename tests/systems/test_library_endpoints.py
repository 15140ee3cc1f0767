"""A library system's own LLM and embedder addresses are recorded in run.json's `system`
section (`runtime`), credentials removed, and kept out of the signature."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from locoscore.systems.context import SystemContext
from locoscore.systems.registry import make_system

LIBRARY_SYSTEMS = {
    "mem0": "mem0",
    "graphiti": "graphiti_core",
    "langmem": "langmem",
    "a-mem": "agentic_memory",
}


@pytest.mark.parametrize("name", sorted(LIBRARY_SYSTEMS))
def test_the_systems_own_endpoints_are_recorded_without_credentials(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if importlib.util.find_spec(LIBRARY_SYSTEMS[name]) is None:
        pytest.skip(f"the {name} extra is not installed")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    options = {
        "llm_base_url": "http://ann:hunter2-secret@127.0.0.1:8081/v1",
        "embedder_base_url": "http://127.0.0.1:8082/v1",
    }
    system = make_system(name, options, SystemContext(tmp_path))
    assert system.runtime() == {
        "llm_base_url": "http://127.0.0.1:8081/v1",
        "embedder_base_url": "http://127.0.0.1:8082/v1",
    }
    signed = " ".join(f"{k}={v}" for k, v in system.signature_options().items())
    assert "8081" not in signed and "8082" not in signed and "hunter2" not in signed


def test_an_unset_address_is_the_one_the_library_will_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if importlib.util.find_spec("langmem") is None:
        pytest.skip("the langmem extra is not installed")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9000/v1")
    system = make_system("langmem", {}, SystemContext(tmp_path))
    assert system.runtime() == {
        "llm_base_url": "http://127.0.0.1:9000/v1",
        "embedder_base_url": "http://127.0.0.1:9000/v1",
    }
