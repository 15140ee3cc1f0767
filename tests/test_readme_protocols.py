"""What the docs say about formats, protocols and the Python API is what the code does."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import locoscore
from locoscore.benchmarks.locomo.data.readers import FORMATS
from locoscore.benchmarks.locomo.scoring.protocols import PROTOCOLS

REPO = Path(__file__).resolve().parents[1]
# the README and every page of the documentation site (docs/), as one text
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
README = "\n".join(p.read_text(encoding="utf-8") for p in PAGES)


@pytest.mark.parametrize("name", sorted(PROTOCOLS))
def test_readme_documents_each_protocols_exact_signature(name: str) -> None:
    signature = PROTOCOLS[name].signature
    # inside a markdown table the '|' separators are escaped
    assert f"`{signature.replace('|', chr(92) + '|')}`" in README


@pytest.mark.parametrize("fmt", FORMATS)
def test_readme_formats_table_has_a_row_per_format(fmt: str) -> None:
    assert f"| `{fmt}` |" in README


def test_readme_api_example_values() -> None:
    assert "0.7165" in README
    # 19 | january | 2023 against 19 | january | , | 2023: all 3 match, BP = exp(1 - 4/3)
    assert locoscore.bleu1("19 January 2023", "19 January, 2023") == pytest.approx(math.exp(-1 / 3))
    assert f"{math.exp(-1 / 3):.4f}" == "0.7165"
    # she / move / to / lisbon vs lisbon: P = 1/4, R = 1 -> 0.4 under both protocols
    assert locoscore.score_f1("She moved to Lisbon", "Lisbon", 4) == pytest.approx(0.4)
    assert locoscore.score_f1("She moved to Lisbon", "Lisbon", 4, protocol="mem0") == 0.4
    assert locoscore.get_protocol("locomo").signature.startswith("proto:locomo|")


def test_readme_judge_signature_names_the_current_rubric_prompt() -> None:
    from locoscore.judge.prompts import builtin_template

    assert f"judge:rubric|prompt:{builtin_template('rubric').version_hash}|" in README


def test_readme_run_signature_names_the_current_answer_prompt() -> None:
    from locoscore.benchmarks.answer_prompt import default_answer_prompt

    assert f"|prompt:{default_answer_prompt().version_hash}|temp:0|" in README
