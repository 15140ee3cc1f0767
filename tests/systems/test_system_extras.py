"""A system whose extra is not installed stops the run with one line naming the install
command, exit 2 (these run where the extra is absent, e.g. a bare `pip install locoscore`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.cli import app

EXTRAS = [
    ("graphiti", "graphiti_core", "pip install 'locoscore[graphiti]'"),
    ("langmem", "langmem", "pip install 'locoscore[langmem]'"),
    ("a-mem", "agentic_memory", "pip install 'locoscore[amem]'"),
]


@pytest.mark.parametrize(("system", "module", "hint"), EXTRAS)
def test_a_missing_extra_is_one_line_with_the_install_command(
    system: str, module: str, hint: str, tmp_path: Path, locomo_path: Path
) -> None:
    if importlib.util.find_spec(module) is not None:
        pytest.skip(f"the {system} extra is installed here")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["run", "--system", system, "--out", str(out), "--dataset", str(locomo_path),
         "--conversations", "conv-30", "--answer-provider", "extractive", "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and hint in errors[0], result.output
    assert "Traceback" not in result.output
    assert not out.exists()
