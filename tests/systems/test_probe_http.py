"""The probe over HTTP: `locoscore probe URL` passes on `serve`d systems and fails, naming
the check, on servers with each broken behaviour (the broken systems behind the reference
server)."""

from __future__ import annotations

import json
from pathlib import Path

import broken_systems as broken
import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.systems.base import MemorySystem
from locoscore.systems.context import SystemContext
from locoscore.systems.registry import make_system
from locoscore.systems.serve import MemoryServer

runner = CliRunner()


def probe_url(system: MemorySystem, out: Path, *args: str) -> tuple[int, str, dict]:
    with MemoryServer(system) as server:
        result = runner.invoke(app, ["probe", server.url, "--json", str(out), *args])
    return result.exit_code, result.output, json.loads(out.read_text())


@pytest.mark.parametrize("name", ["bm25", "full-context"])
def test_probe_passes_on_a_served_builtin_system(name, tmp_path):
    code, output, data = probe_url(
        make_system(name, {}, SystemContext(tmp_path)), tmp_path / "probe.json"
    )
    assert code == 0, output
    assert data["ok"] is True and data["system"] == "http"
    assert "all checks passed" in output


@pytest.mark.parametrize(
    ("cls", "expected"),
    [
        (broken.DateDroppingBM25, ["dates"]),
        (broken.CaptionDroppingBM25, ["captions"]),
        (broken.LeakyBM25, ["isolation", "unknown_conversation"]),
        (broken.TopKIgnoringBM25, ["top_k"]),
        (broken.ResetIgnoringBM25, ["reset"]),
    ],
)
def test_probe_fails_naming_the_check_on_a_broken_server(cls, expected, tmp_path):
    code, output, data = probe_url(cls({}, SystemContext(tmp_path)), tmp_path / "probe.json")
    assert code == 1, output
    assert data["failed"] == expected
    assert f"failed: {', '.join(expected)}" in output


def test_quick_probe_over_http_measures_time_to_searchable(tmp_path):
    code, output, data = probe_url(
        broken.SlowIndexBM25({}, SystemContext(tmp_path)), tmp_path / "probe.json", "--quick"
    )
    assert code == 0, output
    assert 0.3 <= data["time_to_searchable_s"] < 1.5


def test_probe_passes_on_locoscore_serve_in_its_own_process(served_by_the_cli, tmp_path):
    out = tmp_path / "probe.json"
    result = runner.invoke(app, ["probe", served_by_the_cli, "--json", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["ok"] is True and len(data["checks"]) == 11  # ingest + the ten checks


def test_a_self_answering_server_is_probed_on_its_answers(tmp_path):
    system = broken.SelfAnsweringBM25({}, SystemContext(tmp_path))
    code, output, data = probe_url(system, tmp_path / "probe.json")
    assert code == 0, output
    dates = next(c for c in data["checks"] if c["name"] == "dates")
    assert "Quillon 2021-03-14 (answered)" in dates["evidence"]


def test_a_self_answering_server_that_ignores_dates_fails_dates(tmp_path):
    system = broken.DatelessAnsweringBM25({}, SystemContext(tmp_path))
    code, output, data = probe_url(system, tmp_path / "probe.json")
    assert code == 1, output
    assert data["failed"] == ["dates"]
