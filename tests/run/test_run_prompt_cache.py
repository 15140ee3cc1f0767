"""Prompt caching on full-context LoCoMo through the fake provider, which caches by each
provider's published rules: Anthropic's marked prefix written once and read after, OpenAI's
automatic 128-token steps. Costs are checked against hand computations from the usage the
fake reported (the prices written out here, not read from the price table)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from run_helpers import predictions, run_cli

from locoscore.benchmarks.answer_prompt import default_answer_prompt
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

# USD per Mtok as published: claude-sonnet-4-5 input, output, 5-minute cache write, read;
# gpt-4o-mini input, output, cached input.
SONNET = {"in": 3.0, "out": 15.0, "write": 3.75, "read": 0.30}
MINI = {"in": 0.15, "out": 0.60, "read": 0.075}


def digest_answer(prompt: str) -> str:
    """An answer that changes with any character of the prompt the fake was sent."""
    return "answer " + hashlib.sha256(prompt.encode()).hexdigest()[:12]


def _run(
    locomo_path: Path, out: Path, provider: str, conversation: str, *extra: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the answer requests the fake got, the run's prediction lines)."""
    # a little latency: questions sent together overlap, as with a real provider
    with FakeProvider(FakeConfig(answer=digest_answer, latency_s=0.05)) as fake:
        url = fake.url if provider == "anthropic" else fake.openai_url
        model = "claude-sonnet-4-5" if provider == "anthropic" else "gpt-4o-mini"
        result = run_cli(
            "--system", "full-context", "--out", str(out), "--dataset", str(locomo_path),
            "--conversations", conversation, "--answer-provider", provider,
            "--answer-model", model, "--answer-base-url", url, *extra,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        requests = [
            e["body"] for e in fake.requests_log if e["path"].endswith(("messages", "completions"))
        ]
    return requests, predictions(out)


@pytest.fixture(scope="module")
def conv26(locomo_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """conv-26's 199 questions answered by the fake Anthropic, with and without caching."""
    base = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789")
        env.delenv("LOCOSCORE_DATASET", raising=False)
        cached = _run(locomo_path, base / "cached", "anthropic", "conv-26")
        plain = _run(locomo_path, base / "plain", "anthropic", "conv-26", "--no-prompt-cache")
    yield {"base": base, "cached": cached, "plain": plain}


def _cost_anthropic(records: list[dict[str, Any]]) -> float:
    usd = 0.0
    for r in records:
        t = r["answer_tokens"]
        read, write = t.get("cache_read", 0), t.get("cache_write", 0)
        usd += (t["input"] - read - write) * SONNET["in"] + t["output"] * SONNET["out"]
        usd += write * SONNET["write"] + read * SONNET["read"]
    return usd / 1e6


def test_anthropic_requests_mark_the_conversation_block(conv26: dict[str, Any]) -> None:
    requests, records = conv26["cached"]
    assert len(requests) == len(records) == 199
    head = default_answer_prompt().text.split("{context}")[0]
    marked = set()
    for body in requests:
        first, rest = body["messages"][0]["content"]
        assert first["cache_control"] == {"type": "ephemeral"} and "cache_control" not in rest
        # the block holds the instructions and the whole conversation, and nothing after it
        assert first["text"].startswith(head) and "Caroline:" in first["text"]
        assert rest["text"].startswith("Question: ")
        marked.add(first["text"])
    assert len(marked) == 1  # one shared prefix: every question reads the same cache
    for body in conv26["plain"][0]:
        assert isinstance(body["messages"][0]["content"], str)  # --no-prompt-cache: no mark


def test_the_first_question_writes_the_cache_and_every_other_reads_it(
    conv26: dict[str, Any],
) -> None:
    requests, records = conv26["cached"]
    prefix_tokens = len(requests[0]["messages"][0]["content"][0]["text"]) // 4
    writes = [r["answer_tokens"].get("cache_write", 0) for r in records]
    reads = [r["answer_tokens"].get("cache_read", 0) for r in records]
    assert sorted(writes) == [0] * 198 + [prefix_tokens]
    assert sorted(reads) == [0] + [prefix_tokens] * 198
    assert all(w + r == prefix_tokens for w, r in zip(writes, reads, strict=True))


def test_run_cost_is_the_hand_computation_and_at_most_a_quarter_of_uncached(
    conv26: dict[str, Any],
) -> None:
    base = conv26["base"]
    cached = json.loads((base / "cached" / "run.json").read_text())["answer_calls"]
    plain = json.loads((base / "plain" / "run.json").read_text())["answer_calls"]
    records = conv26["cached"][1]
    assert cached["cost_usd"] == pytest.approx(_cost_anthropic(records), abs=2e-6)
    assert plain["cost_usd"] == pytest.approx(_cost_anthropic(conv26["plain"][1]), abs=2e-6)
    assert cached["cost_usd"] <= 0.25 * plain["cost_usd"]
    # tokens shown apart, and the same in summary.json
    assert cached["input_tokens"] == sum(r["answer_tokens"]["input"] for r in records)
    assert cached["cache_read_tokens"] == sum(
        r["answer_tokens"].get("cache_read", 0) for r in records
    )
    assert cached["uncached_input_tokens"] == (
        cached["input_tokens"] - cached["cache_read_tokens"] - cached["cache_write_tokens"]
    )
    summary = json.loads((base / "cached" / "summary.json").read_text())
    assert summary["run"]["answer_calls"]["cost_usd"] == cached["cost_usd"]
    assert summary["run"]["answer"]["prompt_cache"] is True
    report = (base / "cached" / "report.md").read_text()
    assert f"{cached['cache_read_tokens']:,} cache read" in report


def test_answers_order_and_signature_do_not_change_with_caching(conv26: dict[str, Any]) -> None:
    def kept(records: list[dict[str, Any]]) -> list[tuple[str, str]]:
        return [(r["question_id"], r["prediction"]) for r in records]

    cached, plain = conv26["cached"][1], conv26["plain"][1]
    assert kept(cached) == kept(plain)
    assert len({r["prediction"] for r in cached}) > 150  # the answers depend on the prompt
    # the fake saw the very same prompt text either way
    base = conv26["base"]
    signatures = [  # each run had its own fake: the port differs, nothing else
        re.sub(r"endpoint:[^|]*", "", json.loads((base / n / "run.json").read_text())["signature"])
        for n in ("cached", "plain")
    ]
    assert signatures[0] == signatures[1]


def test_dry_run_estimates_with_caching(
    locomo_path: Path, tmp_path: Path, conv26: dict[str, Any]
) -> None:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789")
        result = run_cli(
            "--system", "full-context", "--out", str(tmp_path / "dry"), "--dataset",
            str(locomo_path), "--conversations", "conv-26", "--answer-provider", "anthropic",
            "--answer-model", "claude-sonnet-4-5", "--dry-run",
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    found = re.search(
        r"estimated tokens: ([\d,]+) in \(uncached ([\d,]+), cache read ([\d,]+), "
        r"cache write ([\d,]+)\), ([\d,]+) out estimated cost: \$([\d.]+)",
        text,
    )
    assert found, text
    total, uncached, read, write, out = (int(g.replace(",", "")) for g in found.groups()[:5])
    assert uncached + read + write == total
    assert read == 198 * write  # one write, then every other question reads it
    usd = (uncached * 3.0 + read * 0.30 + write * 3.75 + out * 15.0) / 1e6
    assert float(found.group(6)) == pytest.approx(usd, abs=0.005)
    actual = json.loads((conv26["base"] / "plain" / "run.json").read_text())["answer_calls"]
    assert usd < 0.25 * actual["cost_usd"]


def test_openai_cached_tokens_are_read_and_priced(locomo_path: Path, tmp_path: Path) -> None:
    requests, records = _run(locomo_path, tmp_path / "oa", "openai", "conv-30")
    prompt_tokens = len(requests[0]["messages"][0]["content"]) // 4
    reads = [r["answer_tokens"].get("cache_read", 0) for r in records]
    assert reads[0] == 0  # the first question, sent alone, finds nothing cached
    later = reads[1:]
    assert all(1024 <= n <= prompt_tokens and (n - 1024) % 128 == 0 for n in later)
    calls = json.loads((tmp_path / "oa" / "run.json").read_text())["answer_calls"]
    usd = (
        sum(
            (r["answer_tokens"]["input"] - r["answer_tokens"].get("cache_read", 0)) * MINI["in"]
            + r["answer_tokens"].get("cache_read", 0) * MINI["read"]
            + r["answer_tokens"]["output"] * MINI["out"]
            for r in records
        )
        / 1e6
    )
    assert calls["cost_usd"] == pytest.approx(usd, abs=2e-6)
    assert calls["cache_read_tokens"] == sum(reads) and calls["cache_write_tokens"] == 0
