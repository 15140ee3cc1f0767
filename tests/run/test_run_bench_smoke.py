"""bench/run_throughput.py runs end to end (two conversations, time-compressed) and ends
in one JSON object with nothing lost (no timing is asserted: the machine decides those)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CONVERSATIONS = ["conv-26", "conv-30"]
# LoCoMo's question counts, adversarial included: conv-26 has 199, conv-30 has 105.
QUESTIONS = 199 + 105
FIGURES = {
    "questions", "concurrency", "scale", "locoscore_wall_s", "seed_wall_s", "seed_extrapolated",
    "ratio", "rpm_share", "rpm_share_with_ingestion", "lost", "answer_requests",
    "http_statuses", "ingestion_s",
}  # fmt: skip


def test_run_bench_last_line_is_the_json_figures_with_nothing_lost(locomo_path: Path) -> None:
    command = [
        sys.executable, str(REPO / "bench" / "run_throughput.py"), "--dataset", str(locomo_path),
        "--conversations", ",".join(CONVERSATIONS), "--scale", "60", "--seed-prefix", "3",
        "--concurrency", "32", "--embedding-latency", "0.001",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(figures) == FIGURES
    assert figures["questions"] == QUESTIONS
    assert figures["lost"] == 0
    statuses = figures["http_statuses"]
    assert statuses.pop("200") == figures["answer_requests"]
    assert statuses in ({}, {"404": statuses.get("404")})  # the server's self-description probes
    assert figures["seed_extrapolated"] is True  # 3 of each conversation's questions asked
    assert figures["ratio"] > 0 and figures["rpm_share"] > 0
    assert sorted(figures["ingestion_s"]["bm25"]) == CONVERSATIONS
    embedding = figures["ingestion_s"]["embedding"]
    if "skipped" not in embedding:  # the embedding system has landed
        assert sorted(embedding["per_conversation_s"]) == CONVERSATIONS
        assert embedding["errors"] == {}
