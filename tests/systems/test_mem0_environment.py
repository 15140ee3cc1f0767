"""Mem0 imported offline and inside the run: telemetry off, its folder in the run (never
~/.mem0), and the variables that would reroute its calls removed with a warning."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mem0_helpers import requires_mem0

from locoscore.systems.registry import SystemContext, make_system

pytestmark = requires_mem0

_SCRIPT = """
import json, os, sys, warnings
from pathlib import Path
from locoscore.systems.registry import SystemContext, make_system
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    make_system("mem0", {}, SystemContext(Path(sys.argv[1])))
from mem0.memory import telemetry
print(json.dumps({
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
        "OPENROUTER_API_KEY": "sk-or-should-not-be-used",
        "OPENAI_API_BASE": "http://127.0.0.1:9/v1",
    }
    env.pop("MEM0_TELEMETRY", None)
    env.pop("MEM0_DIR", None)
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
    assert report["telemetry"] is False
    assert report["rerouting"] == []
    assert sorted(w.split(" for this process")[0] for w in report["warnings"]) == [
        "mem0: unset OPENAI_API_BASE",
        "mem0: unset OPENROUTER_API_KEY",
    ]
    assert not (home / ".mem0").exists()
    assert (state / "mem0" / "config.json").is_file()


def test_unsetting_a_rerouting_variable_warns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-x")
    with pytest.warns(UserWarning, match="unset OPENROUTER_API_KEY"):
        make_system("mem0", {}, SystemContext(tmp_path))
    assert "OPENROUTER_API_KEY" not in os.environ
    assert os.environ["MEM0_TELEMETRY"] == "False"
