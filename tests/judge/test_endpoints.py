"""The endpoint is part of what made a verdict: the cache keys on it, the signature names a
non-default one, the served model is read from the reply, and the fake says it is fake."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from audit_helpers import write_dataset, write_probe_file
from judge_helpers import make_records, write_native
from plain_openai_server import PlainOpenAIServer
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.judge.cache import JudgeStore
from locoscore.results.layout import JUDGE_CACHE
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

runner = CliRunner()
RUNS = 2
RECORDS = 3


@pytest.fixture(autouse=True)
def user_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


@pytest.fixture
def predictions(tmp_path: Path) -> Path:
    return write_native(tmp_path / "p.jsonl", make_records(RECORDS))


@pytest.fixture
def other_fake() -> Any:
    with FakeProvider(FakeConfig(timeout_s=5.0)) as provider:
        yield provider


def _judge(base_url: str, predictions: Path, out: Path, *extra: str) -> Any:
    args = ["judge", str(predictions), "--out", str(out), "--base-url", base_url]
    result = runner.invoke(app, [*args, "--no-progress", "--runs", str(RUNS), *extra])
    assert result.exit_code == 0, result.output
    return result


def _summary(out: Path) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text())
    return summary


@pytest.mark.parametrize("user_cache", [False, True])
def test_a_second_endpoint_makes_every_call_again(
    fake: FakeProvider,
    other_fake: FakeProvider,
    tmp_path: Path,
    predictions: Path,
    user_cache: bool,
) -> None:
    flags = ["--user-cache"] if user_cache else []
    first, second = tmp_path / "A", tmp_path / ("B" if user_cache else "A")
    _judge(fake.url, predictions, first, *flags)
    assert fake.generation_calls == RUNS * RECORDS
    result = _judge(other_fake.url, predictions, second, *flags)
    assert other_fake.generation_calls == RUNS * RECORDS  # nothing served from the first
    assert f"calls: {RUNS * RECORDS} made, 0 cached" in result.output
    signature = _summary(second)["judge"]["signature"]
    assert f"|endpoint:127.0.0.1:{other_fake.port}|model:claude-sonnet-4-6|" in signature
    assert "|served:claude-sonnet-4-6|fake|" in signature
    # and the first endpoint's verdicts are still there for it
    fake.reset_counters()
    _judge(fake.url, predictions, first, *flags)
    assert fake.generation_calls == 0


def test_the_fake_is_named_in_the_signature_summary_and_reports(
    fake: FakeProvider, tmp_path: Path, predictions: Path
) -> None:
    out = tmp_path / "out"
    result = _judge(fake.url, predictions, out)
    judge = _summary(out)["judge"]
    assert judge["served"] == {"models": ["claude-sonnet-4-6"], "fake": True}
    assert judge["endpoint"] == {"url": fake.url, "default": False}
    assert judge["signature"].startswith(
        f"judge:rubric|prompt:{judge['prompt_hash']}|provider:anthropic"
        f"|endpoint:127.0.0.1:{fake.port}|model:claude-sonnet-4-6|served:claude-sonnet-4-6|fake|"
    )
    through = f"judged through {fake.url} (locoscore's fake provider, not a real model)"
    assert through in result.output
    report = (out / "report.md").read_text()
    assert f"Judged through {fake.url} (locoscore's fake provider" in report
    rows = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    assert {r["j_protocol"] for r in rows} == {judge["signature"]}


def test_a_dated_snapshot_is_the_asked_model_and_is_priced(
    fake: FakeProvider, tmp_path: Path, predictions: Path
) -> None:
    fake.config.served_model = "gpt-4o-mini-2024-07-18"
    out = tmp_path / "out"
    result = _judge(fake.openai_url, predictions, out, "--provider", "openai", "--model",
                    "gpt-4o-mini")  # fmt: skip
    judge = _summary(out)["judge"]
    assert "|model:gpt-4o-mini|served:gpt-4o-mini-2024-07-18|fake|" in judge["signature"]
    assert judge["warnings"] == []
    usage = judge["usage"]
    # gpt-4o-mini's list price: $0.15 / $0.60 per million tokens
    expected = (usage["input_tokens"] * 0.15 + usage["output_tokens"] * 0.60) / 1e6
    assert usage["estimated_cost_usd"] == pytest.approx(round(expected, 4))
    assert "cost n/a" not in result.output


def test_a_local_server_serving_another_model_is_named_warned_and_not_priced(
    tmp_path: Path, predictions: Path
) -> None:
    out = tmp_path / "out"
    with PlainOpenAIServer("smollm2-135m") as server:
        result = _judge(server.url, predictions, out, "--provider", "openai-compatible",
                        "--model", "gpt-4o-mini")  # fmt: skip
    assert server.models_asked == ["gpt-4o-mini"] * RUNS * RECORDS
    judge = _summary(out)["judge"]
    port = server.url.split(":")[2].split("/")[0]
    assert (
        f"|provider:openai-compatible|endpoint:127.0.0.1:{port}|model:gpt-4o-mini"
        "|served:smollm2-135m|temp:0.5|"
    ) in judge["signature"]
    assert judge["served"] == {"models": ["smollm2-135m"], "fake": False}
    assert judge["usage"]["estimated_cost_usd"] is None  # gpt-4o-mini has a price: not served
    assert judge["usage"]["cost_unknown_reason"] == (
        "served smollm2-135m, not gpt-4o-mini: no price applies"
    )
    assert len(judge["warnings"]) == 1 and "served smollm2-135m" in judge["warnings"][0]
    assert "asked for gpt-4o-mini" in result.output and "cost n/a" in result.output
    report = (out / "report.md").read_text()
    assert f"Judged through {server.url} (not the provider's API)." in report
    assert "Warning: judge: asked for gpt-4o-mini" in report
    # not the fake: nothing made here says so
    assert "fake" not in judge["signature"]
    for text in (report, (out / "report.html").read_text(), result.output):
        assert "fake" not in text


def test_cached_verdicts_of_another_served_model_are_asked_again(
    fake: FakeProvider, tmp_path: Path
) -> None:
    """The same endpoint now serving another model: once a live reply says so, every
    verdict cached from the old model is asked again."""
    out = tmp_path / "B"
    records = make_records(RECORDS + 1)
    first = write_native(tmp_path / "a.jsonl", records[:RECORDS])
    _judge(fake.url, first, tmp_path / "A", "--user-cache")
    fake.config.served_model = "claude-sonnet-4-6-20990101"
    fake.reset_counters()
    _judge(fake.url, write_native(tmp_path / "b.jsonl", records), out, "--user-cache")
    assert fake.generation_calls == RUNS * (RECORDS + 1)
    judge = _summary(out)["judge"]
    assert judge["served"]["models"] == ["claude-sonnet-4-6-20990101"]
    assert judge["calls"]["cached"] == 0


def test_a_cache_file_from_before_endpoints_opens_and_serves_nothing(
    fake: FakeProvider, tmp_path: Path, predictions: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    old = sqlite3.connect(out / JUDGE_CACHE)
    old.executescript(
        "CREATE TABLE judgments (key TEXT PRIMARY KEY, question_key TEXT NOT NULL, "
        "run_index INTEGER NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL, "
        "protocol TEXT NOT NULL, prompt_hash TEXT NOT NULL, params TEXT NOT NULL, "
        "score REAL NOT NULL, explanation TEXT NOT NULL, method TEXT NOT NULL, "
        "raw_reply TEXT NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT "
        "NULL, latency_s REAL NOT NULL, created_at REAL NOT NULL);"
        "INSERT INTO judgments VALUES ('k', 'q', 0, 'anthropic', 'claude-sonnet-4-6', "
        "'rubric', 'h', '{}', 90, 'old', 'structured', '{}', 1, 1, 0.1, 0);"
    )
    old.commit()
    old.close()
    _judge(fake.url, predictions, out)
    assert fake.generation_calls == RUNS * RECORDS
    with JudgeStore(out / JUDGE_CACHE) as store:
        assert store.count() == RUNS * RECORDS + 1  # the old row kept, never served


@pytest.mark.parametrize("through_fake", [True, False])
def test_the_audit_says_fake_only_when_it_ran_against_the_fake(
    fake: FakeProvider, tmp_path: Path, through_fake: bool
) -> None:
    dataset = write_dataset(tmp_path / "locomo.json", samples=1, questions=4)
    probe = write_probe_file(tmp_path / "vague-probe.json", dataset)
    out = tmp_path / "audit"
    with PlainOpenAIServer("gpt-4o-mini-2024-07-18") as plain:
        url = fake.url if through_fake else plain.url
        provider = [] if through_fake else ["--provider", "openai-compatible", "--model",
                                            "gpt-4o-mini"]  # fmt: skip
        result = runner.invoke(app, ["audit", "--out", str(out), "--base-url", url,
                                     "--no-progress", "--dataset", str(dataset), "--probes",
                                     str(probe), "--runs", "1", *provider])  # fmt: skip
    assert result.exit_code == 0, result.output
    document = json.loads((out / "audit.json").read_text())
    markdown = (out / "audit.md").read_text()
    assert document["judge"]["served"]["fake"] is through_fake
    assert ("|fake" in document["judge"]["signature"]) is through_fake
    assert ("Run against locoscore's fake provider" in markdown) is through_fake
    if through_fake:
        assert f"Judged through {fake.url} (locoscore's fake provider" in markdown
    else:
        assert "fake" not in markdown
        assert f"Judged through {plain.url} (not the provider's API)." in markdown
        assert "|served:gpt-4o-mini-2024-07-18|" in document["judge"]["signature"]
        assert document["warnings"] == []
