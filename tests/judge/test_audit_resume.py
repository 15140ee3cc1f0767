"""`locoscore audit` killed with SIGKILL mid-run, then rerun: only the missing calls are made."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from audit_helpers import write_dataset, write_probe_file
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing.fake_provider import FakeProvider, reference_recall_score

SAMPLES, QUESTIONS, RUNS, CONCURRENCY = 3, 10, 3, 4
NEEDED = 2 * SAMPLES * QUESTIONS * RUNS  # gold + one probe set


def _command(fake: FakeProvider, dataset: Path, probe: Path, out: Path) -> list[str]:
    script = Path(sys.executable).parent / "locoscore"
    return [str(script), "audit", "--out", str(out), "--dataset", str(dataset), "--probes",
            str(probe), "--base-url", fake.url, "--runs", str(RUNS), "--concurrency",
            str(CONCURRENCY), "--no-progress"]  # fmt: skip


def _numbers(out: Path) -> list[dict[str, object]]:
    document = json.loads((out / "audit.json").read_text())
    return [{k: s[k] for k in ("name", "acceptance", "scores")} for s in document["probe_sets"]]


def test_sigkill_mid_audit_then_rerun_matches_an_uninterrupted_audit(
    fake: FakeProvider, tmp_path: Path
) -> None:
    fake.config.latency_s = 0.03
    fake.config.verdict = reference_recall_score
    dataset = write_dataset(tmp_path / "locomo.json", SAMPLES, QUESTIONS)
    probe = write_probe_file(tmp_path / "vague-probe.json", dataset)
    crashed = tmp_path / "crashed"
    process = subprocess.Popen(
        _command(fake, dataset, probe, crashed), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 30
    while fake.generation_calls < NEEDED // 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    assert process.returncode == -signal.SIGKILL
    before = fake.generation_calls
    assert before < NEEDED  # it really died mid-run
    assert not (crashed / "audit.json").exists()  # nothing half-written

    rerun = subprocess.run(_command(fake, dataset, probe, crashed), capture_output=True)
    assert rerun.returncode == 0, rerun.stderr.decode()
    assert fake.generation_calls <= NEEDED + CONCURRENCY  # the done calls were not repeated
    calls = json.loads((crashed / "audit.json").read_text())["calls"]
    assert calls["cached"] >= before - CONCURRENCY and calls["failed"] == 0

    fake.reset_counters()
    clean = tmp_path / "clean"
    fake.config.latency_s = 0.0
    in_process = _command(fake, dataset, probe, clean)[1:]
    assert CliRunner().invoke(app, in_process).exit_code == 0
    assert fake.generation_calls == NEEDED
    assert _numbers(crashed) == _numbers(clean)

    fake.reset_counters()  # a finished audit reruns with no call at all
    assert CliRunner().invoke(app, in_process).exit_code == 0
    assert fake.generation_calls == 0
