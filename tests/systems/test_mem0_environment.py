"""Mem0 imported offline and inside the run: nothing happens at construction; at start
telemetry is off, its folder is in the run (never ~/.mem0), and the variables that would
reroute its calls are removed with a warning."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mem0_helpers import API_KEY, DIMS, make_mem0, requires_mem0, run

from locoscore.testing import FakeConfig, FakeProvider

pytestmark = requires_mem0

_SCRIPT = """
import asyncio, json, os, sys, warnings
from pathlib import Path
from locoscore.systems.context import SystemContext
from locoscore.systems.registry import make_system
from locoscore.testing import FakeConfig, FakeProvider
state = Path(sys.argv[1])
with FakeProvider(FakeConfig(embedding_dims=64)) as fp:
    url = fp.openai_url
    system = make_system(
        "mem0",
        {"llm_base_url": url, "embedder_base_url": url, "embedding_dims": "64"},
        SystemContext(state),
    )
    constructed = {"state_exists": state.exists(), "mem0_imported": "mem0" in sys.modules}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(system.start())
from mem0.memory import telemetry
print(json.dumps({
    **constructed,
    "telemetry": telemetry.MEM0_TELEMETRY,
    "warnings": [str(w.message) for w in caught],
    "rerouting": [n for n in ("OPENROUTER_API_KEY", "OPENAI_API_BASE") if n in os.environ],
}))
"""


def test_a_fresh_process_imports_mem0_silently_inside_the_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "OPENAI_API_KEY": API_KEY,
        "OPENROUTER_API_KEY": "sk-or-should-not-be-used",
        "OPENAI_API_BASE": "http://127.0.0.1:9/v1",
    }
    for name in ("MEM0_TELEMETRY", "MEM0_DIR", "OPENAI_BASE_URL"):
        env.pop(name, None)
    state = tmp_path / "run" / "state"
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(state)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    report = json.loads(out.stdout.strip().splitlines()[-1])
    # Constructing the system (before a run is known to be valid) touches nothing.
    assert report["state_exists"] is False and report["mem0_imported"] is False
    assert report["telemetry"] is False
    assert report["rerouting"] == []
    assert sorted(w.split(" for this process")[0] for w in report["warnings"]) == [
        "mem0: unset OPENAI_API_BASE",
        "mem0: unset OPENROUTER_API_KEY",
    ]
    assert not (home / ".mem0").exists()
    assert (state / "mem0" / "config.json").is_file()


def test_start_unsets_a_rerouting_variable_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-x")
    with FakeProvider(FakeConfig(embedding_dims=DIMS)) as fp:
        system = make_mem0(tmp_path, fp)
        with pytest.warns(UserWarning, match="unset OPENROUTER_API_KEY"):
            run(system.start())
    assert "OPENROUTER_API_KEY" not in os.environ
    assert os.environ["MEM0_TELEMETRY"] == "False"
