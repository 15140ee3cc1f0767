"""Judge = answerer fails the gate "judge independent" unless `--allow-self-judge` (and stays
a warning); an unaudited judge is a warning: one run answered by a (fake) gpt-4o-mini,
judged by itself and by another family. Every folder here is the fake provider's: it passes
only with `--allow-fake`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import invoke

from locoscore._io import write_json_atomic
from locoscore.claim.card import model_family
from locoscore.results.manifest import bound
from locoscore.testing.fake_provider import FakeConfig, FakeProvider


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("claude-sonnet-4-6", "claude"),
        ("gpt-4o-mini", "gpt"),
        ("o3-mini", "gpt"),
        ("Qwen/Qwen2.5-7B-Instruct", "qwen"),
        ("meta-llama/Llama-3.1-8B-Instruct", "llama"),
        (None, None),
    ],
)
def test_model_family(model, family):
    assert model_family(model) == family


def test_judging_its_own_answers_is_a_warning_that_flips_with_the_judge(
    locomo_path, tmp_path, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-claim-0123456789")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with FakeProvider(FakeConfig(latency_s=0.0, timeout_s=5.0)) as fake:
        run = tmp_path / "run"
        code, output = invoke(
            "run", "--system", "bm25", "--dataset", str(locomo_path), "--limit", "20",
            "--out", str(run), "--no-progress", "--answer-provider", "openai-compatible",
            "--answer-model", "gpt-4o-mini", "--answer-base-url", fake.openai_url,
            "--skip-probe",
        )  # fmt: skip
        assert code == 0, output
        seen = {}
        for judge in ("gpt-4o-mini", "claude-sonnet-4-6"):
            folder = tmp_path / judge
            shutil.copytree(run, folder, ignore=shutil.ignore_patterns("run_state.sqlite"))
            code, output = invoke(
                "judge", str(folder / "predictions.jsonl"), "--out", str(folder), "--dataset",
                str(locomo_path), "--provider", "openai-compatible", "--model", judge,
                "--base-url", fake.openai_url, "--runs", "1", "--no-progress",
            )  # fmt: skip
            assert code == 0, output
            code, output = invoke("verify", str(folder), "--allow-fake", "--allow-self-judge")
            assert code == 0, output  # warnings do not fail
            seen[judge] = [line for line in output.splitlines() if line.startswith("warning:")]
            code, output = invoke("verify", str(folder))
            assert code == 1, output  # the fake provider answered and judged
            assert "  FAIL real models: answered and judged by locoscore's fake provider" in output
            assert "  answer model: gpt-4o-mini (locoscore's fake provider, not a real model)" in (
                output.splitlines()
            )
    unaudited = "warning: judge not audited: no `locoscore audit` of this judge in the folder"
    assert seen == {
        "gpt-4o-mini": [
            "warning: judge = answerer: gpt-4o-mini judged its own answers (same model) "
            "(allowed by --allow-self-judge)",
            unaudited,
        ],
        "claude-sonnet-4-6": [unaudited],
    }
    # without the flag, judging its own answers fails
    code, output = invoke("verify", str(tmp_path / "gpt-4o-mini"), "--allow-fake")
    assert code == 1, output
    assert [line for line in output.splitlines() if line.startswith("  FAIL")] == [
        "  FAIL judge independent: the judge gpt-4o-mini is the answer model gpt-4o-mini: it "
        "judged its own answers (--allow-self-judge to accept it)"
    ]
    assert Path(tmp_path / "gpt-4o-mini" / "report.md").read_text().count("judge = answerer") == 1
    # an audit of this very judge (as `locoscore audit` records it) lifts the last warning
    folder = tmp_path / "claude-sonnet-4-6"
    signature = json.loads((folder / "summary.json").read_text())["judge"]["signature"]
    audit = {"judge": {"signature": signature}, "probe_sets": [], "summary_line": "lenient 3 %"}
    with bound(folder, "audit"):  # written as a command writes it: bound by the manifest
        write_json_atomic(folder / "audit.json", audit)
    code, output = invoke("verify", str(folder), "--allow-fake")
    assert code == 0, output
    assert "warning:" not in output
    assert "  judge audit: yes: lenient 3 %" in output.splitlines()


def test_judge_replies_it_cannot_parse_count_as_unparsable_failures(
    bm25_run, locomo_path, tmp_path, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-claim-0123456789")
    folder = tmp_path / "judged"
    shutil.copytree(bm25_run, folder, ignore=shutil.ignore_patterns("run_state.sqlite"))
    with FakeProvider(FakeConfig(latency_s=0.0, timeout_s=5.0, faults={"empty": 1.0})) as fake:
        code, output = invoke(
            "judge", str(folder / "predictions.jsonl"), "--out", str(folder), "--dataset",
            str(locomo_path), "--provider", "openai-compatible", "--model", "judge-x",
            "--base-url", fake.openai_url, "--runs", "1", "--no-progress",
        )  # fmt: skip
    assert code == 1, output  # the judge's own gate: too many runs without a verdict
    verdicts = [json.loads(line) for line in (folder / "judgments.jsonl").read_text().splitlines()]
    # every call's reply was empty: no verdict in it
    unparsed = {v["key"] for v in verdicts if v["error"] == "empty reply"}
    assert len(unparsed) == 47  # the sample's questions the judge scores (adversarial aside)
    claim = json.loads((folder / "summary.json").read_text())["claim"]
    assert claim["failures"]["by_kind"]["unparsable"] == len(unparsed)
    assert claim["failures"]["failed"] == len(unparsed)
    code, output = invoke("verify", str(folder), "--allow-fake")
    assert code == 1, output
    assert f"{len(unparsed)} unparsable), threshold 2.0 %" in output
