"""The README's two commands are the ones users and CI run, and the README stays short.

Its code blocks (and every docs/ page's) run in tests/docs/test_doc_blocks.py."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
INSTALL_STEPS = ("python3 -m venv .venv", ". .venv/bin/activate", "pip install")


def _bash_blocks() -> list[str]:
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", README, flags=re.S)]


def _ci_test_line() -> str:
    """The line of .ci/run that installs into .venv and runs the suite (the 3.13 run is another)."""
    lines = (REPO / ".ci" / "run").read_text().splitlines()
    return next(
        line for line in lines if line.startswith("python3 -m venv .venv &&") and "pytest" in line
    )


def test_readme_is_short() -> None:
    assert len(README.splitlines()) <= 150


def test_ci_runs_exactly_the_readme_test_command() -> None:
    test_command = _bash_blocks()[1]
    assert "pytest" in test_command
    assert test_command == _ci_test_line()
    # the site is built with warnings as errors, with the docs extra installed
    steps = [s.strip() for s in test_command.split("&&")]
    assert "mkdocs build --strict" in steps
    assert steps.index("mkdocs build --strict") < steps.index("python -m pytest")
    extras = re.findall(r"\[([\w,]+)\]", test_command)[0].split(",")
    assert "docs" in extras and "test" in extras


def test_readme_first_command_runs_a_builtin_system_on_the_bundled_benchmark() -> None:
    steps = [shlex.split(s) for s in _bash_blocks()[0].split("&&")]
    run = next(s for s in steps if s[:2] == ["locoscore", "run"])
    assert run[run.index("--benchmark") + 1] == "python:tiny_benchmark:BENCHMARK"
    assert run[run.index("--system") + 1] == "bm25"
    assert run[run.index("--answer-provider") + 1] == "extractive"
    assert ["cd", "examples"] in steps
    assert (REPO / "examples" / "tiny_benchmark.py").is_file()
    out = run[run.index("--out") + 1]
    assert ["locoscore", "report", out] in steps  # and writes the report


def test_install_lines_match_ci() -> None:
    ci = _ci_test_line()
    extras = re.findall(r"\[([\w,]+)\]", ci)[0].split(",")
    for block in _bash_blocks():
        for line in block.replace("\\\n", " ").splitlines():
            command = line.partition("  #")[0]
            for step in (s.strip() for s in command.split("&&")):
                if not step.startswith(INSTALL_STEPS):
                    continue
                if step.startswith("pip install"):
                    target = step.split()[-1].strip("'")
                    assert target == "." or target.startswith((".[", "locoscore[")), step
                    wanted = re.findall(r"\[([\w,]+)\]", target)
                    for extra in wanted[0].split(",") if wanted else []:
                        assert extra in extras, step
                else:
                    assert step in ci, step


def test_readme_links_point_at_files_that_exist() -> None:
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if not link.startswith(("http://", "https://"))]
    assert local
    for link in local:
        assert (REPO / link).exists(), link


def test_readme_names_every_benchmark_and_how_to_serve_the_site() -> None:
    for name in ("LoCoMo", "LongMemEval", "BEAM"):
        assert name in README
    assert "mkdocs serve" in README
