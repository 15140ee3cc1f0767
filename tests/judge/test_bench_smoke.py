"""bench/judge_throughput.py runs end to end (tiny and time-compressed) and ends in JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_throughput_bench_last_line_is_the_json_figures() -> None:
    command = [
        sys.executable, str(REPO / "bench" / "judge_throughput.py"), "--questions", "30",
        "--runs", "2", "--scale", "60", "--seed-prefix", "6", "--concurrency", "16",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(figures) == {"locoscore_wall_s", "seed_wall_s", "ratio", "rpm_share", "lost"}
    assert figures["lost"] == 0
    assert figures["locoscore_wall_s"] > 0 and figures["seed_wall_s"] > 0 and figures["ratio"] > 0
