"""The panel's built-in prompt variants, and the fake provider's lenient and strict rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from locoscore.benchmarks import get_benchmark
from locoscore.errors import InputError
from locoscore.judge.panel.variants import ACCEPTS, variant_template
from locoscore.testing.fake_provider import reference_contains_score, reference_exact_score


def _template(
    spec: str, protocol: str, benchmark: str = "locomo", base: Path = Path(".")
) -> object:
    bench = get_benchmark(benchmark)
    return variant_template(
        spec, protocol, official=bench.official_judge_template, benchmark=bench.name, base=base
    )


@pytest.mark.parametrize("protocol", ["binary", "rubric"])
@pytest.mark.parametrize("variant", ["official", "strict", "lenient"])
def test_each_variant_is_its_own_prompt_read_by_the_fake_rules(variant: str, protocol: str) -> None:
    template = _template(variant, protocol)
    assert template is not None and template.protocol == protocol  # type: ignore[attr-defined]
    assert variant in ACCEPTS
    prompt = template.render("When?", "7 May 2023", "It was on 7 May 2023, I think.", 2)  # type: ignore[attr-defined]
    # the fake's rules find the reference and the fenced candidate in every variant
    assert reference_contains_score(prompt) == 100
    assert reference_exact_score(prompt) == 0
    exact = template.render("When?", "7 May 2023", "7 may 2023.", 2)  # type: ignore[attr-defined]
    assert reference_exact_score(exact) == 100


def test_variants_differ_and_locoscore_is_the_default() -> None:
    hashes = {_template(v, "binary").version_hash for v in ("official", "strict", "lenient")}  # type: ignore[attr-defined]
    assert len(hashes) == 3
    assert _template("locoscore", "binary") is None


def test_official_refused_where_the_benchmark_has_none_and_files_are_read(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="has no 'official' judge variant"):
        _template("official", "binary", benchmark="longmemeval")
    own = tmp_path / "mine.txt"
    own.write_text("Q {question} G {gold} P {prediction} CORRECT or WRONG")
    assert _template("mine.txt", "binary", base=tmp_path).name == "file:mine.txt"  # type: ignore[attr-defined]
    with pytest.raises(InputError, match=r"unknown template .missing\.txt.: not a built-in"):
        _template("missing.txt", "binary", base=tmp_path)


@pytest.mark.parametrize(
    ("benchmark", "why"),
    [
        ("longmemeval", "official per-type judge rules in locoscore's words"),
        ("beam", "judge --protocol beam-official"),
        ("personamem", "declares no official judge prompt"),
    ],
)
def test_the_official_refusal_says_why_truthfully(benchmark: str, why: str) -> None:
    """No benchmark is told its default "already follows its published rules" unless that
    is what its default is; a benchmark with an official judge elsewhere names it."""
    bench = get_benchmark(benchmark)
    with pytest.raises(InputError) as refused:
        variant_template(
            "official", "binary", official=bench.official_judge_template,
            benchmark=bench.name, base=Path("."), no_official=bench.no_official_judge,
        )  # fmt: skip
    assert why in str(refused.value) and "already follows" not in str(refused.value)


def test_locomo_plus_has_an_official_variant_read_from_the_official_files() -> None:
    """A marker until the judge pass reads the data (and with it the official files)."""
    template = _template("official", "binary", benchmark="locomo-plus")
    assert template is not None and template.name == "official-locomo-plus-judge"  # type: ignore[attr-defined]
