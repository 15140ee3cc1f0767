"""Bad input to `locoscore run`: one line, exit 2, nothing written; budget warnings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from run_helpers import run_cli

BASE = ["--answer-provider", "extractive", "--conversations", "conv-30"]

CASES: dict[str, tuple[list[str], str]] = {
    "unknown_system": (
        ["--system", "zepp"],
        "--system zepp: unknown system (known: a-mem, bm25, embedding, full-context",
    ),
    "unknown_option": (
        ["--system", "bm25", "--system-option", "k3=1"],
        "--system-option k3: unknown option for system bm25 (known: b, granularity, k1)",
    ),
    "option_without_value": (
        ["--system", "bm25", "--system-option", "granularity"],
        "--system-option 'granularity': expected KEY=VALUE",
    ),
    "bad_option_value": (
        ["--system", "bm25", "--system-option", "granularity=paragraph"],
        "--system-option granularity=paragraph: bm25 expects one of turn, session",
    ),
    "non_numeric_option": (
        ["--system", "bm25", "--system-option", "k1=high"],
        "--system-option k1=high: expected a number",
    ),
    "unknown_conversation": (
        ["--system", "bm25", "--conversations", "conv-99"],
        "--conversations: unknown conversation 'conv-99' (known: conv-26, conv-30,",
    ),
    "zero_top_k": (["--system", "bm25", "--top-k", "0"], "--top-k must be at least 1"),
    "unknown_answer_provider": (
        ["--system", "bm25", "--answer-provider", "gemini"],
        "--answer-provider gemini: expected one of anthropic, openai, openai-compatible, "
        "extractive",
    ),
}


def _invoke(args: list[str], out: Path, dataset: Path) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).parent / "locoscore"
    command = [str(script), "run", "--out", str(out), "--dataset", str(dataset), *BASE, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_one_line_exit_2_and_nothing_written(
    case: str, tmp_path: Path, locomo_path: Path
) -> None:
    args, message = CASES[case]
    out = tmp_path / "out"
    result = run_cli("--out", str(out), "--dataset", str(locomo_path), *BASE, *args)
    assert result.exit_code == 2, result.output
    line = " ".join(result.output.split())  # rich wraps long lines at the terminal width
    assert line.startswith("error: ") and message in line
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert not out.exists()


def test_a_prompt_file_without_its_placeholders_is_refused(
    tmp_path: Path, locomo_path: Path
) -> None:
    prompt = tmp_path / "p.txt"
    prompt.write_text("Answer the question: {question}", encoding="utf-8")
    out = tmp_path / "out"
    result = _invoke(["--system", "bm25", "--answer-prompt", str(prompt)], out, locomo_path)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"error: {prompt}, field '--answer-prompt': answer prompt lacks placeholder(s) {{context}}"
    )
    assert not out.exists()


def test_a_folder_holding_another_run_is_refused(tmp_path: Path, locomo_path: Path) -> None:
    out = tmp_path / "out"
    assert _invoke(["--system", "bm25"], out, locomo_path).returncode == 0
    result = _invoke(["--system", "bm25", "--top-k", "5"], out, locomo_path)
    assert result.returncode == 2
    assert "holds a run with another signature" in result.stderr
    assert "top_k:10" in result.stderr and "top_k:5" in result.stderr


def test_top_k_reaching_the_items_of_a_conversation_warns_that_retrieval_is_bypassed(
    tmp_path: Path, locomo_path: Path
) -> None:
    result = run_cli(
        "--system", "bm25", "--out", str(tmp_path / "o"), "--dataset", str(locomo_path),
        *BASE, "--system-option", "granularity=session", "--top-k", "19",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (
        "conv-30: --top-k 19 reaches the 19 items the conversation holds: retrieval is "
        "bypassed" in " ".join(result.output.split())
    )


def test_full_context_says_that_budgets_do_not_apply(tmp_path: Path, locomo_path: Path) -> None:
    out = tmp_path / "o"
    result = run_cli(
        "--system", "full-context", "--out", str(out), "--dataset", str(locomo_path), *BASE,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "full-context places the whole conversation in the prompt: --top-k and" in text
    assert "|top_k:n/a|budget:n/a|" in (out / "run.json").read_text()


def test_the_context_budget_applies_to_every_system_the_same_way(
    tmp_path: Path, locomo_path: Path
) -> None:
    import json

    out = tmp_path / "o"
    result = run_cli(
        "--system", "bm25", "--out", str(out), "--dataset", str(locomo_path), *BASE,
        "--context-budget", "100",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    records = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert all(r["context_tokens"] <= 100 for r in records)
    assert all(len(r["retrieved"]) + r["retrieved_dropped_by_budget"] == 10 for r in records)
    assert any(r["retrieved_dropped_by_budget"] > 0 for r in records)


def test_the_quick_probe_runs_first_and_its_report_is_in_run_json(
    tmp_path: Path, locomo_path: Path
) -> None:
    import json

    out = tmp_path / "o"
    result = run_cli("--system", "bm25", "--out", str(out), "--dataset", str(locomo_path), *BASE)
    assert result.exit_code == 0, result.output
    probe = json.loads((out / "run.json").read_text())["probe"]
    assert probe["ok"] is True and probe["failed"] == []
    names = [c["name"] for c in probe["checks"]]
    assert {"dates", "captions", "isolation", "top_k"} <= set(names)
    report = " ".join((out / "report.md").read_text().split())
    assert f"Integration probe ({len(names)} checks on a synthetic pair): passed" in report


def test_a_system_failing_the_probe_is_refused_unless_skip_probe(
    tmp_path: Path, locomo_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    systems = Path(__file__).resolve().parents[1] / "systems"
    monkeypatch.syspath_prepend(str(systems))
    out = tmp_path / "o"
    args = [
        "--system", "python:broken_systems:DateDroppingBM25", "--out", str(out),
        "--dataset", str(locomo_path), *BASE,
    ]  # fmt: skip
    refused = run_cli(*args)
    assert refused.exit_code == 2
    text = " ".join(refused.output.split())
    assert "the integration probe failed (dates:" in text and "--skip-probe" in text
    assert not out.exists()
    assert run_cli(*args, "--skip-probe").exit_code == 0


def test_after_a_crash_a_rerun_with_other_settings_is_refused_not_mixed(
    tmp_path: Path, locomo_path: Path
) -> None:
    out = tmp_path / "o"
    base = ["--system", "bm25", "--out", str(out), "--dataset", str(locomo_path), *BASE]
    assert run_cli(*base).exit_code == 0
    (out / "run.json").unlink()  # what a crash leaves: the resume state, no run.json yet
    result = run_cli(*base, "--top-k", "1")
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "run_state.sqlite" in text and "holds a run with another signature" in text
    assert run_cli(*base).exit_code == 0  # the same settings resume


def test_a_missing_answer_key_stops_the_run_before_anything_is_written(
    tmp_path: Path, locomo_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "o"
    result = run_cli(
        "--system", "bm25", "--out", str(out), "--dataset", str(locomo_path),
        "--conversations", "conv-30", "--answer-provider", "openai",
    )  # fmt: skip
    assert result.exit_code == 2
    assert "OPENAI_API_KEY is not set: calls to openai need an API key" in result.output
    assert not out.exists()
