"""API keys never reach a file under --out, a log line, a stop reason or an error message,
even when the provider echoes the key back in an error body."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from judge_helpers import (
    ANTHROPIC_KEY,
    OPENAI_KEY,
    anthropic_settings,
    make_records,
    openai_settings,
    write_native,
)
from typer.testing import CliRunner

from locoscore.benchmarks.locomo.judge import judge_pass
from locoscore.cli import app
from locoscore.llm.call_errors import redact_secrets
from locoscore.testing import _anthropic_batches, _anthropic_wire, _openai_batches, _openai_wire
from locoscore.testing.fake_provider import FakeProvider

SECRET = "sk-ant-api03-SECRETVALUE-abcdef0123456789"


def _files_containing(out: Path, secret: str) -> list[Path]:
    return [p for p in out.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_redaction_removes_env_keys_bearer_tokens_and_key_shaped_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "custom-gateway-token-42")
    text = (
        "key custom-gateway-token-42; header Bearer abc.def-ghi; "
        "Incorrect API key provided: sk-proj-****************wxyz; sent sk-ant-api03-XYZ123"
    )
    cleaned = redact_secrets(text)
    for leaked in ("custom-gateway-token-42", "abc.def-ghi", "wxyz", "XYZ123"):
        assert leaked not in cleaned
    assert "Incorrect API key provided" in cleaned  # the reason itself survives


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_key_echoed_in_a_401_body_reaches_no_file_and_no_stop_reason(
    fake: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    key = ANTHROPIC_KEY if provider == "anthropic" else OPENAI_KEY
    # A careless server: its 401 quotes the credential it was sent.
    monkeypatch.setattr(
        _anthropic_wire,
        "handle_message",
        lambda core, body, headers: _anthropic_wire.error_reply(
            401, "authentication_error", f"invalid key {headers.get('authorization')}"
        ),
    )
    monkeypatch.setattr(
        _openai_wire,
        "handle_chat_completion",
        lambda core, body: _openai_wire.error_reply(
            401, f"Incorrect API key provided: {key}", "invalid_api_key"
        ),
    )
    factory = anthropic_settings if provider == "anthropic" else openai_settings
    result = asyncio.run(judge_pass(make_records(2), factory(fake, runs=2), tmp_path))
    assert result.run is not None and result.run.stop_reason is not None
    assert "HTTP 401" in result.run.stop_reason and key not in result.run.stop_reason
    assert all(key not in (row.error or "") for row in result.run.rows)
    assert (tmp_path / "judgments.jsonl").exists()
    assert _files_containing(tmp_path, key) == []


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_batch_endpoint_echoing_the_key_gives_one_clean_line_exit_1(
    fake: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    key = ANTHROPIC_KEY if provider == "anthropic" else OPENAI_KEY
    monkeypatch.setattr(
        _anthropic_batches,
        "create_batch",
        lambda core, body, headers, base_url: _anthropic_wire.error_reply(
            401, "authentication_error", f"bad credential {headers.get('authorization')}"
        ),
    )
    monkeypatch.setattr(
        _openai_batches,
        "upload_file",
        lambda core, raw, content_type: _openai_wire.error_reply(
            401, f"Incorrect API key provided: {key}", "invalid_api_key"
        ),
    )
    predictions = write_native(tmp_path / "p.jsonl", make_records(2))
    url = fake.url if provider == "anthropic" else fake.openai_url
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["judge", str(predictions), "--out", str(out), "--provider", provider,
         "--base-url", url, "--batch", "--runs", "1", "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "batch request failed: auth: HTTP 401" in result.output
    assert "Traceback" not in result.output and key not in result.output
    if out.exists():
        assert _files_containing(out, key) == []


def test_cli_against_the_command_line_fake_leaks_the_key_nowhere(tmp_path: Path) -> None:
    """As a user would run it: the fake provider as its own process, SDK debug logging on,
    faults of every kind, then every byte written to stdout, stderr and --out is searched."""
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": SECRET,
        "ANTHROPIC_LOG": "debug",
        "OPENAI_LOG": "debug",
    }
    fake = subprocess.Popen(
        [sys.executable, "-m", "locoscore.testing.fake_provider", "--port", "0",
         "--faults", "429=0.1,500=0.1,refusal=0.05,bad_json=0.05", "--retry-after", "0.01"],
        stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        assert fake.stdout is not None
        url = fake.stdout.readline().split()[-1]
        predictions = write_native(tmp_path / "p.jsonl", make_records(4))
        out = tmp_path / "out"
        locoscore = Path(sys.executable).parent / "locoscore"
        done = subprocess.run(
            [str(locoscore), "judge", str(predictions), "--out", str(out), "--base-url", url,
             "--runs", "3"],
            capture_output=True, env=env, timeout=60,
        )  # fmt: skip
    finally:
        fake.terminate()
        fake.wait(timeout=10)
    assert done.returncode == 0, done.stderr.decode()
    assert b"Request options" in done.stderr  # the SDK's debug log really was on
    assert SECRET.encode() not in done.stdout + done.stderr
    assert {p.name for p in out.iterdir()} >= {"judgments.jsonl", "judge_cache.sqlite"}
    assert _files_containing(out, SECRET) == []
    summary = json.loads((out / "summary.json").read_text())["judge"]
    assert summary["calls"]["made"] >= 12


def test_credentials_in_custom_variables_are_scrubbed_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from locoscore.llm.call_errors import one_line_error

    monkeypatch.setenv("MY_EMBEDDER_KEY", "emb-0a1b2c3d4e5f")
    monkeypatch.setenv("LOCOSCORE_MEMORY_TOKEN", "tok-9f8e7d6c")
    text = "bad key emb-0a1b2c3d4e5f and token tok-9f8e7d6c echoed"
    assert redact_secrets(text) == "bad key [redacted] and token [redacted] echoed"
    assert one_line_error(ValueError(text)) == (
        "ValueError: bad key [redacted] and token [redacted] echoed"
    )
