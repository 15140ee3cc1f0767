"""The README's two commands are the ones users and CI run."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _bash_blocks() -> list[str]:
    text = (REPO / "README.md").read_text()
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def test_ci_runs_exactly_the_readme_test_command() -> None:
    test_command = _bash_blocks()[1]
    assert "pytest" in test_command
    ci_lines = (REPO / ".ci" / "run").read_text().splitlines()
    assert test_command in ci_lines


def test_readme_first_command_scores_the_bundled_example() -> None:
    first = _bash_blocks()[0]
    assert "locoscore score examples/" in first
    example = first.split("locoscore score ")[1].split()[0]
    assert (REPO / example).is_file()
