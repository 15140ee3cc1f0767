"""The probe checks a LongMemEval run needs: items name their own turns (`attribution`),
and `reset` empties one conversation only; a run on LongMemEval runs both."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from recording_system import MisattributingBM25  # this folder is on sys.path (rootdir)

from locoscore.systems.context import SystemContext
from locoscore.systems.probe import run_probe
from locoscore.systems.registry import make_system


def _probe(system: Any) -> Any:
    async def go() -> Any:
        await system.start()
        try:
            return await run_probe(system, ("attribution", "reset"))
        finally:
            await system.aclose()

    return asyncio.run(go())


def test_attribution_passes_on_bm25_and_fails_on_a_wrong_turn(tmp_path: Path) -> None:
    good = _probe(make_system("bm25", {}, SystemContext(tmp_path)))
    assert good.check("attribution").status == "passed", good.check("attribution").evidence
    assert "3 of 3 facts came back naming their own turn" in good.check("attribution").evidence
    bad = _probe(MisattributingBM25({}, SystemContext(tmp_path)))
    check = bad.check("attribution")
    assert check.status == "failed" and "'Quillon' (turn D1:1)" in check.evidence
    assert "['D1:2']" in check.evidence


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_longmemeval_run_probes_reset_and_attribution(fake: Any, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from locoscore.cli import app
    from locoscore.testing.longmemeval_fixture import write_fixture

    out = tmp_path / "o"
    result = CliRunner().invoke(app, [
        "run", "--benchmark", "longmemeval", "--dataset", str(write_fixture(tmp_path / "s.json")),
        "--out", str(out), "--system", "bm25", "--answer-provider", "extractive", "--no-progress",
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    names = [c["name"] for c in json.loads((out / "run.json").read_text())["probe"]["checks"]]
    assert {"dates", "isolation", "attribution", "reset"} <= set(names)


def test_probe_quick_for_longmemeval_adds_its_checks(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from locoscore.cli import app

    report = tmp_path / "probe.json"
    args = ["probe", "--system", "bm25", "--quick", "--json", str(report)]
    result = CliRunner().invoke(app, [*args, "--benchmark", "longmemeval"])
    assert result.exit_code == 0, result.output
    names = [c["name"] for c in json.loads(report.read_text())["checks"]]
    assert names[-2:] == ["attribution", "reset"]
    assert CliRunner().invoke(app, [*args, "--benchmark", "ruler"]).exit_code == 2
