"""Judge throughput: locoscore's pool vs the seed's schedule on a rate-limited provider.

A full LoCoMo judge pass is 1,540 questions x 10 runs = 15,400 calls. This starts the fake
provider in its own process with a fixed latency and a requests-per-minute limit, runs the
whole pass through `locoscore.judge.judge_pass` (cache, SDK, adaptive pool: the real code
path), then the seed's schedule (3 calls in parallel, 200 ms between batches) on a prefix
of the calls, extrapolated linearly (the seed's schedule is strictly periodic, so its wall
time is linear in the number of calls).

Time is scaled so the run finishes in under 3 minutes: every duration (latency, gap, the
rate-limit window) is divided by --scale, so the ratio and the share of the limit are those
of the unscaled scenario. Defaults: 1.5 s per judge call, 4,000 requests per minute.
The share of the limit is the calls per second achieved over the whole run divided by the
limit's rate; the fake's window slides, so the first window may be spent in a burst and a
share slightly above 1 is possible.

    python bench/judge_throughput.py            # the last line is one JSON object
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.judge import judge_pass
from locoscore.judge import JudgeSettings
from locoscore.judge.prompts import builtin_template
from locoscore.llm.providers import AnthropicClient

CATEGORIES = (4, 1, 2, 3)


def synthetic_records(questions: int) -> list[PredictionRecord]:
    """Invented questions of LoCoMo-like length (not LoCoMo text)."""
    return [
        PredictionRecord(
            sample_id=f"bench-{i // 160}",
            qa_index=i % 160,
            category=CATEGORIES[i % 4],
            question=f"What did the speakers decide about plan number {i} after the trip?",
            answer=f"They agreed to postpone plan {i} until the spring.",
            prediction=f"They decided to postpone plan {i} to next spring.",
        )
        for i in range(questions)
    ]


def start_fake(latency_s: float, rpm: int, window_s: float) -> tuple[subprocess.Popen[str], str]:
    command = [
        sys.executable, "-m", "locoscore.testing.fake_provider", "--port", "0",
        "--latency", f"{latency_s}", "--rpm", str(rpm), "--rpm-window", f"{window_s}",
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    return process, line.split()[-1]


def server_stats(url: str) -> dict[str, object]:
    with urllib.request.urlopen(f"{url}/_fake/stats", timeout=10) as response:
        stats: dict[str, object] = json.loads(response.read())
    return stats


async def seed_schedule(settings: JudgeSettings, records: list[PredictionRecord], gap_s: float,
                        calls: int) -> tuple[float, int]:  # fmt: skip
    """The seed's loop: 3 judge calls at once, wait for all, sleep 200 ms, repeat."""
    judge = settings.resolve()
    client = AnthropicClient(judge.provider_config())
    template = builtin_template("rubric")
    prompts = [
        template.render(r.question, r.answer_text, r.prediction, r.category)
        for r in records
        for _ in range(settings.runs)
    ][:calls]
    ok = 0
    started = time.monotonic()
    for start in range(0, len(prompts), 3):
        replies = await asyncio.gather(
            *(client.complete(p) for p in prompts[start : start + 3]), return_exceptions=True
        )
        ok += sum(1 for r in replies if not isinstance(r, BaseException))
        await asyncio.sleep(gap_s)
    elapsed = time.monotonic() - started
    await client.aclose()
    return elapsed, ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=1540)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--latency", type=float, default=1.5, help="seconds per call (real)")
    parser.add_argument("--rpm", type=int, default=4000, help="requests per minute (real)")
    parser.add_argument("--gap", type=float, default=0.2, help="seed: pause between batches")
    parser.add_argument("--scale", type=float, default=2.5, help="divide all durations by")
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--seed-prefix", type=int, default=60, help="seed calls measured")
    args = parser.parse_args()

    os.environ.setdefault("ANTHROPIC_API_KEY", "bench-not-a-real-key")
    latency, gap, window = args.latency / args.scale, args.gap / args.scale, 60.0 / args.scale
    calls = args.questions * args.runs
    limit_per_s = args.rpm / window
    print(
        f"scenario: {calls:,} calls, {args.latency:g} s per call, {args.rpm:,} requests/min; "
        f"time scaled 1/{args.scale:g}: latency {latency:.3f} s, window {window:.1f} s, "
        f"limit {limit_per_s:.1f} calls/s"
    )
    fake, url = start_fake(latency, args.rpm, window)
    records = synthetic_records(args.questions)
    try:
        settings = JudgeSettings(
            base_url=url, runs=args.runs, concurrency=args.concurrency, timeout_s=30.0
        )
        with tempfile.TemporaryDirectory() as out:
            started = time.monotonic()
            result = asyncio.run(judge_pass(records, settings, Path(out)))
            loco_wall = time.monotonic() - started
        assert result.run is not None
        scored = sum(1 for row in result.run.rows if row.score is not None)
        failed = sum(1 for row in result.run.rows if row.score is None)
        lost = calls - scored - failed
        generations = int(server_stats(url)["generation_calls"])  # type: ignore[call-overload]
        status = server_stats(url)["status_counts"]
        rpm_share = (calls / loco_wall) / limit_per_s
        print(
            f"locoscore: {loco_wall:.1f} s for {calls:,} calls ({calls / loco_wall:.1f}/s, "
            f"{rpm_share:.1%} of the limit); scored {scored:,}, failed {failed}, lost {lost}; "
            f"server generations {generations:,}; HTTP statuses {status}"
        )
        prefix = min(args.seed_prefix, calls)
        seed_prefix_s, seed_ok = asyncio.run(seed_schedule(settings, records, gap, prefix))
        seed_wall = seed_prefix_s * calls / prefix
        print(
            f"seed schedule: {seed_prefix_s:.1f} s for the first {prefix} calls ({seed_ok} ok), "
            f"extrapolated linearly to {calls:,} calls: {seed_wall:.0f} s "
            f"(unscaled: {seed_wall * args.scale / 3600:.1f} h vs locoscore "
            f"{loco_wall * args.scale / 60:.1f} min)"
        )
    finally:
        fake.terminate()
        fake.wait(timeout=10)
    ratio = seed_wall / loco_wall
    print(f"ratio {ratio:.1f}x (goal >= 20), rpm share {rpm_share:.2f} (goal >= 0.9), lost {lost}")
    print(
        json.dumps(
            {
                "locoscore_wall_s": round(loco_wall, 2),
                "seed_wall_s": round(seed_wall, 2),
                "ratio": round(ratio, 2),
                "rpm_share": round(rpm_share, 3),
                "lost": lost,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
