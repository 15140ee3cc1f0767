"""The generic layers name no benchmark: board/, report/, judge/ and generic/ import no
benchmark's modules (`benchmarks/<name>/`), and board/ and report/ hold no benchmark's name
in their code (a comment or docstring may explain). They ask the benchmark object instead."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from locoscore.benchmarks import BENCHMARKS

SRC = Path(__file__).resolve().parents[2] / "src" / "locoscore"
NEUTRAL = ("board", "report", "judge", "generic")
NAMELESS = ("board", "report")
# every built-in benchmark's package and name (BEAM's variants share the `beam` package)
PACKAGES = sorted({name.split("-")[0] for name in BENCHMARKS})


def _files(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (SRC / folder).rglob("*.py"))


def _imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
    return found


def _code_words(path: Path) -> list[tuple[int, str]]:
    """(line, token) of every name and string that is code: no comment, no docstring."""
    text = path.read_text(encoding="utf-8")
    docstrings = set()
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                docstrings.add(value.lineno)
    return [
        (tok.start[0], tok.string)
        for tok in tokenize.generate_tokens(io.StringIO(text).readline)
        if tok.type in (tokenize.NAME, tokenize.STRING) and tok.start[0] not in docstrings
    ]


@pytest.mark.parametrize("path", _files(*NEUTRAL), ids=lambda p: str(p.relative_to(SRC)))
def test_imports_no_benchmark_module(path: Path) -> None:
    own = [f"locoscore.benchmarks.{name}" for name in PACKAGES]
    bad = [
        module
        for module in _imports(path)
        if module == "locoscore.categories" or any(module.startswith(o) for o in own)
    ]
    assert bad == []


@pytest.mark.parametrize("path", _files(*NAMELESS), ids=lambda p: str(p.relative_to(SRC)))
def test_code_names_no_benchmark(path: Path) -> None:
    pattern = re.compile("|".join(PACKAGES), re.IGNORECASE)
    assert [(line, word) for line, word in _code_words(path) if pattern.search(word)] == []


def test_the_checks_see_a_benchmark_name_in_code(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""Docstring naming LoCoMo."""\n'
        "from locoscore.benchmarks.locomo.report import metrics  # LoCoMo's\n"
        'COLUMN = "f1_locomo"\n'
    )
    assert "locoscore.benchmarks.locomo.report" in _imports(sample)
    assert [w for _, w in _code_words(sample) if "locomo" in w.lower()] == [
        "locomo",
        '"f1_locomo"',
    ]
