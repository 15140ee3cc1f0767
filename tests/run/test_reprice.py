"""`locoscore reprice`: stored costs recomputed from recorded tokens with another price
table; every other byte of the folder unchanged."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from run_helpers import run_cli
from typer.testing import CliRunner

from locoscore._io import sha256_file
from locoscore.cli import app
from locoscore.results.layout import MANIFEST
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

COST_FIELDS = {"cost_usd", "estimated_cost_usd", "price_table"}
NEW_PRICES = {
    "claude-sonnet-4-5": {"input": 6, "output": 20, "cache_write": 9, "cache_read": 0.5},
    "gpt-4o-mini": {"input": 1, "output": 2},
}


@pytest.fixture(scope="module")
def judged(locomo_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """conv-30 answered by the fake Claude with caching, then judged by the fake GPT."""
    out = tmp_path_factory.mktemp("reprice") / "run"
    with pytest.MonkeyPatch.context() as env, FakeProvider(FakeConfig()) as fake:
        env.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789")
        env.setenv("OPENAI_API_KEY", "sk-test-0123456789")
        env.delenv("LOCOSCORE_DATASET", raising=False)
        result = run_cli(
            "--system", "full-context", "--out", str(out), "--dataset", str(locomo_path),
            "--conversations", "conv-30", "--exclude-adversarial", "--answer-provider",
            "anthropic", "--answer-model", "claude-sonnet-4-5", "--answer-base-url", fake.url,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        result = CliRunner().invoke(
            app,
            [
                "judge", str(out / "predictions.jsonl"), "--out", str(out), "--dataset",
                str(locomo_path), "--provider", "openai", "--model", "gpt-4o-mini",
                "--base-url", fake.openai_url, "--runs", "2", "--no-progress",
            ],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
    yield out


def _leaves(value: Any, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in _leaves(item, (*path, key)).items()}
    if isinstance(value, list):
        return {
            k: v for i, item in enumerate(value) for k, v in _leaves(item, (*path, str(i))).items()
        }
    return {path: value}


def _changed(before: Path, after: Path) -> dict[str, list[Any]]:
    """Per file that differs: the JSON leaves that differ, or the text lines that do (the
    manifest aside: it records each write, `_bound` checks it)."""
    out: dict[str, list[Any]] = {}
    for path in sorted(before.iterdir()):
        if path.name == MANIFEST:
            continue
        if path.is_dir() or path.read_bytes() == (after / path.name).read_bytes():
            continue
        if path.suffix == ".json":
            a = _leaves(json.loads(path.read_text()))
            b = _leaves(json.loads((after / path.name).read_text()))
            out[path.name] = [k for k in a.keys() | b.keys() if a.get(k) != b.get(k)]
        else:
            a_lines = path.read_text().splitlines()
            b_lines = (after / path.name).read_text().splitlines()
            assert len(a_lines) == len(b_lines), path.name
            out[path.name] = [(x, y) for x, y in zip(a_lines, b_lines, strict=True) if x != y]
    return out


def _reprice(folder: Path, *extra: str) -> Any:
    return CliRunner().invoke(app, ["reprice", str(folder), *extra])


def test_the_same_table_changes_no_cost(judged: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(judged, copy)
    result = _reprice(copy)
    assert result.exit_code == 0, result.output
    # only the name of the table, which a judge pass does not record itself, is added
    assert _changed(judged, copy) == {"summary.json": [("judge", "usage", "price_table")]}
    assert json.loads((copy / "summary.json").read_text())["judge"]["usage"]["price_table"] == (
        "built-in"
    )


def test_a_changed_table_changes_only_costs_to_the_hand_computed_totals(
    judged: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(judged, copy)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(NEW_PRICES))
    result = _reprice(copy, "--prices", str(prices))
    assert result.exit_code == 0, result.output
    changed = _changed(judged, copy)
    assert set(changed) == {"run.json", "summary.json", "report.md", "report.html"}
    recorded = json.loads((copy / MANIFEST).read_text())["files"]
    for name in changed:  # the manifest describes the bytes reprice wrote
        assert recorded[name]["sha256"] == sha256_file(copy / name)
        assert recorded[name]["by"] == "reprice"
    for name in ("run.json", "summary.json"):
        assert changed[name] and all(path[-1] in COST_FIELDS for path in changed[name]), name
    for name in ("report.md", "report.html"):
        assert changed[name] and all("$" in new for _, new in changed[name]), name
    # the totals, by hand from the recorded tokens
    calls = json.loads((copy / "run.json").read_text())["answer_calls"]
    usd = (
        calls["uncached_input_tokens"] * 6
        + calls["cache_read_tokens"] * 0.5
        + calls["cache_write_tokens"] * 9
        + calls["output_tokens"] * 20
    ) / 1e6
    assert calls["cache_read_tokens"] > 0 and calls["cost_usd"] == round(usd, 6)
    assert calls["price_table"].startswith("prices.json sha256:")
    judge = json.loads((copy / "summary.json").read_text())["judge"]
    usage = judge["usage"]
    assert usage["estimated_cost_usd"] == round(
        (usage["input_tokens"] * 1 + usage["output_tokens"] * 2) / 1e6, 4
    )
    assert f"${calls['cost_usd']:.4f}" in (copy / "report.md").read_text()


def test_a_folder_without_token_counts_says_what_it_cannot_price(
    judged: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(judged, copy)
    run = json.loads((copy / "run.json").read_text())
    del run["answer_calls"]["this_attempt"]["input_tokens"]
    (copy / "run.json").write_text(json.dumps(run))
    before = {p.name: p.read_bytes() for p in copy.iterdir() if p.is_file()}
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(NEW_PRICES))
    result = _reprice(copy, "--prices", str(prices))
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "answer_calls.this_attempt" in lines[0], result.output
    assert "no token counts" in lines[0] and "Traceback" not in result.output
    assert {p.name: p.read_bytes() for p in copy.iterdir() if p.is_file()} == before
    empty = tmp_path / "empty"
    empty.mkdir()
    result = _reprice(empty)
    assert result.exit_code == 2 and "nothing to price" in result.output


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('{"gpt-4o-mini": {"input": -1.0, "output": 2}}', "input"),
        ('{"gpt-4o-mini": {"input": "1.0", "output": 2}}', "input"),
        ('{"gpt-4o-mini": {"input": 1, "output": true}}', "output"),
        ('{"gpt-4o-mini": {"input": NaN, "output": 2}}', "input"),
        ('{"gpt-4o-mini": {"input": 1, "output": Infinity}}', "output"),
        ('{"gpt-4o-mini": {"input": 1, "output": 2, "cache_read": -0.1}}', "cache_read"),
        ('{"gpt-4o-mini": {"input": 1, "output": 2, "cached": 0.1}}', "cached"),
    ],
)
def test_a_price_that_is_not_a_finite_non_negative_number_is_refused_before_anything_is_written(
    judged: Path, tmp_path: Path, text: str, field: str
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(judged, copy)
    before = {p.name: p.read_bytes() for p in copy.iterdir() if p.is_file()}
    prices = tmp_path / "prices.json"
    prices.write_text(text)
    result = _reprice(copy, "--prices", str(prices))
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    assert "prices.json" in lines[0] and "gpt-4o-mini" in lines[0] and field in lines[0]
    assert {p.name: p.read_bytes() for p in copy.iterdir() if p.is_file()} == before


def test_models_the_prices_file_leaves_out_are_named_as_priced_from_the_built_in_table(
    judged: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(judged, copy)
    prices = tmp_path / "prices.json"
    # the answer model's price only: the judge (gpt-4o-mini) falls back to the built-in table
    prices.write_text(json.dumps({"claude-sonnet-4-5": NEW_PRICES["claude-sonnet-4-5"]}))
    result = _reprice(copy, "--prices", str(prices))
    assert result.exit_code == 0, result.output
    said = [line for line in result.output.splitlines() if "built-in table" in line]
    assert len(said) == 1 and said[0].endswith(": gpt-4o-mini"), result.output
    usage = json.loads((copy / "summary.json").read_text())["judge"]["usage"]
    assert usage["estimated_cost_usd"] == round(
        (usage["input_tokens"] * 0.15 + usage["output_tokens"] * 0.60) / 1e6, 4
    )
