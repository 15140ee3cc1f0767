"""`locoscore probe`: a table of named checks, exit 1 on a failure, exit 2 on bad input."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.cli import app

runner = CliRunner()
SYSTEMS_TESTS = Path(__file__).resolve().parents[1] / "systems"


def test_probe_of_bm25_passes_and_writes_json(tmp_path):
    out = tmp_path / "probe.json"
    result = runner.invoke(app, ["probe", "--system", "bm25", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "all checks passed" in result.output
    data = json.loads(out.read_text())
    assert data["ok"] is True and data["system"] == "bm25"
    assert [c["name"] for c in data["checks"]] == [
        "ingest",
        "shapes",
        "dates",
        "captions",
        "isolation",
        "ingest_once",
        "top_k",
        "time_to_searchable",
        "attribution",
        "reset",
        "unknown_conversation",
    ]


def test_quick_probe_runs_only_the_quick_checks(tmp_path):
    out = tmp_path / "probe.json"
    args = ["--system", "bm25", "--system-option", "granularity=session", "--quick"]
    result = runner.invoke(app, ["probe", *args, "--json", str(out)])
    assert result.exit_code == 0, result.output
    names = [c["name"] for c in json.loads(out.read_text())["checks"]]
    assert names == ["ingest", "dates", "captions", "isolation", "top_k", "time_to_searchable"]


def test_broken_user_class_fails_naming_the_check(tmp_path, monkeypatch):
    monkeypatch.chdir(SYSTEMS_TESTS)
    monkeypatch.setattr(sys, "path", list(sys.path))
    out = tmp_path / "probe.json"
    result = runner.invoke(
        app,
        ["probe", "--system", "python:broken_systems:CaptionDroppingBM25", "--json", str(out)],
    )
    assert result.exit_code == 1, result.output
    assert "failed: captions" in result.output
    data = json.loads(out.read_text())
    assert data["ok"] is False and data["failed"] == ["captions"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give a server URL or --system NAME"),
        (["http://127.0.0.1:9", "--system", "bm25"], "not both"),
        (["--system", "bm25", "--check", "speed"], "--check speed: unknown check"),
        (["--system", "bm25", "--quick", "--check", "dates"], "cannot be combined"),
        (["--system", "nosuch"], "--system nosuch: unknown system"),
        (["--system", "bm25", "--system-option", "k1"], "expected KEY=VALUE"),
        (["--system", "bm25", "--system-option", "depth=3"], "unknown option for system bm25"),
        (["--system", "python:no_such_module_xyz:X"], "no module 'no_such_module_xyz'"),
    ],
)
def test_bad_input_is_one_line_exit_2_nothing_written(args, message, tmp_path):
    out = tmp_path / "probe.json"
    result = runner.invoke(app, ["probe", *args, "--json", str(out)])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not out.exists()


def test_unreachable_url_writes_nothing(tmp_path):
    out = tmp_path / "probe.json"
    result = runner.invoke(app, ["probe", "http://127.0.0.1:9", "--json", str(out)])
    assert result.exit_code == 2, result.output
    assert not out.exists()
