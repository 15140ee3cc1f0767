"""`bench/f1_throughput.py` runs, agrees with the reference and ends with one JSON line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "f1_throughput.py"


def test_bench_prints_identical_scores_and_a_json_last_line(locomo_path: Path) -> None:
    # a small run (the whole dataset twice); the real run uses --min 100000
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--dataset", str(locomo_path), "--min", "2000"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(figures) == {
        "predictions",
        "locoscore_per_s",
        "reference_per_s",
        "ratio",
        "identical",
    }
    assert figures["predictions"] == 1986 * 2
    assert figures["identical"] is True
    assert figures["locoscore_per_s"] > figures["reference_per_s"] > 0
    assert figures["ratio"] > 1
