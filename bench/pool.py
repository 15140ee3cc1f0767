"""A run and a judge through one endpoint against a pool of N (stand-in llama.cpp servers).

N stand-in servers (`locoscore.testing.llama_server`), each with `--slots` slots and
`--service` seconds a call, answer a bm25 run on LoCoMo (`--conversations`) and then judge
its predictions (binary, one run), each through one of them (`--answer-base-url URL`) and
through the pool of N (`--answer-base-url` repeated); in this process, then with Ray
(`--executor ray --shards K`, K = `--ray-shards`: each task gets its own servers of the
pool). The answers are a
hash of the prompt, so equal predictions mean every question got its own answer.

Printed: the wall time of each, the ratio one/pool, whether the predictions and the J are
equal, the most calls any server had in flight (never above its slots in a pool), and a
run through the pool with one server stopped part way: it finishes, no question lost, and
the stopped server's failures counted in run.json.

    python bench/pool.py                  # the last line is one JSON object
    python bench/pool.py --no-ray         # in this process only
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing.llama_server import LlamaConfig, LlamaServer

LOCOMO = Path(os.environ.get("LOCOSCORE_LOCOMO", "/work/shared/data/locomo10.json"))
MODEL = "smollm2-135m"  # the stand-in's own name: no mismatch warning


def hashed_answer(prompt: str) -> str:
    return "answer " + hashlib.sha256(prompt.encode()).hexdigest()[:10]


def hashed_verdict(prompt: str) -> str:
    """From the judged answer (`hashed_answer`'s hash): the prompt itself carries a fresh
    fence token every call."""
    found = re.search(r"answer ([0-9a-f]{10})", prompt)
    return "CORRECT" if found and int(found.group(1), 16) % 2 else "WRONG"


def cli(*args: str) -> tuple[float, Any]:
    started = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = CliRunner().invoke(app, list(args))
    wall = time.monotonic() - started
    if result.exit_code != 0:
        raise SystemExit(f"locoscore {' '.join(args[:2])} failed:\n{result.output}")
    return wall, result


def urls_args(option: str, servers: list[LlamaServer]) -> list[str]:
    return [a for s in servers for a in (option, s.openai_url)]


def run_args(args: argparse.Namespace, out: Path) -> list[str]:
    return [
        "run", "--system", "bm25", "--answer-provider", "openai-compatible",
        "--answer-model", MODEL, "--dataset", str(LOCOMO), "--conversations",
        args.conversations, "--out", str(out), "--no-progress", "--skip-probe",
    ]  # fmt: skip


def judge_args(answers: Path, out: Path) -> list[str]:
    return [
        "judge", str(answers / "predictions.jsonl"), "--out", str(out), "--dataset",
        str(LOCOMO), "--protocol", "binary", "--provider", "openai-compatible", "--model",
        MODEL, "--runs", "1", "--no-progress",
    ]  # fmt: skip


def predictions(folder: Path) -> list[str]:
    lines = (folder / "predictions.jsonl").read_text().splitlines()
    return [json.loads(line)["prediction"] for line in lines]


def judged(folder: Path) -> Any:
    return json.loads((folder / "summary.json").read_text())["judge"]["overall"]


def peaks(servers: list[LlamaServer]) -> list[int]:
    """The most calls each server had in flight (queued or served) since the last reset."""
    out = [s.state.peak_in_flight for s in servers]
    for s in servers:
        s.state.peak_in_flight = 0
    return out


def one_vs_pool(
    args: argparse.Namespace, servers: list[LlamaServer], root: Path, tag: str, extra: list[str]
) -> dict[str, Any]:
    """The run and the judge through servers[0] alone, then through the pool."""
    figures: dict[str, Any] = {}
    for step in ("run", "judge"):
        walls, peak = {}, {}
        for name, used in (("one", servers[:1]), ("pool", servers)):
            out = root / f"{tag}-{step}-{name}"
            if step == "run":
                command = run_args(args, out) + urls_args("--answer-base-url", used)
            else:
                command = judge_args(root / f"{tag}-run-{name}", out)
                command += urls_args("--base-url", used)
            walls[name], _ = cli(*command, *extra)
            peak[name] = peaks(servers)
        if step == "run":
            same = predictions(root / f"{tag}-run-one") == predictions(root / f"{tag}-run-pool")
        else:
            same = judged(root / f"{tag}-judge-one") == judged(root / f"{tag}-judge-pool")
        figures[step] = {
            "one_s": round(walls["one"], 2),
            "pool_s": round(walls["pool"], 2),
            "ratio": round(walls["one"] / walls["pool"], 2),
            "equal": same,
            "peak_in_flight_one": peak["one"],
            "peak_in_flight_pool": peak["pool"],
        }
        f = figures[step]
        print(
            f"{tag} {step}: one server {f['one_s']:.1f} s, pool of {len(servers)} "
            f"{f['pool_s']:.1f} s, ratio {f['ratio']:.2f}; equal {same}; most in flight "
            f"per server {peak['pool']} (one server: {peak['one'][0]})",
            file=sys.stderr,
        )
    return figures


def stopped_part_way(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    """A pool run (its own process) with one server stopped after a few calls."""
    config = LlamaConfig(slots=args.slots, service_s=args.service, answer=hashed_answer)
    servers = [LlamaServer(config).start() for _ in range(args.servers)]
    out = root / "stopped"
    command = [sys.executable, "-m", "locoscore", *run_args(args, out)]
    command += urls_args("--answer-base-url", servers)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while servers[1].completions < args.stop_after and time.monotonic() < deadline:
            time.sleep(0.01)
        servers[1].stop()
        output, _ = process.communicate(timeout=600)
    finally:
        for s in servers:
            s.stop()
    run = json.loads((out / "run.json").read_text())
    endpoints = run["answer_calls"]["concurrency"]["endpoints"]
    lost = [r for r in map(json.loads, (out / "predictions.jsonl").read_text().splitlines())
            if r.get("error")]  # fmt: skip
    figures = {
        "exit_code": process.returncode,
        "questions": run["questions"],
        "failed_questions": len(lost),
        "failures_by_endpoint": {e["url"]: e["failures"] for e in endpoints},
        "answered_by_endpoint": {e["url"]: e["answered"] for e in endpoints},
    }
    print(
        f"one server stopped after {args.stop_after} calls: exit {process.returncode}, "
        f"{len(lost)} question(s) lost of {run['questions']}; failures by endpoint "
        f"{figures['failures_by_endpoint']}",
        file=sys.stderr,
    )
    if process.returncode != 0:
        print(output.decode(errors="replace")[-2000:], file=sys.stderr)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", type=int, default=3)
    parser.add_argument("--slots", type=int, default=2)
    parser.add_argument("--service", type=float, default=0.3, help="seconds a call")
    parser.add_argument("--conversations", default="conv-26,conv-30")
    parser.add_argument("--stop-after", type=int, default=20, help="calls before the stop")
    parser.add_argument("--ray", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument(
        "--ray-shards", type=int, default=2, help="Ray tasks (at most the conversations)"
    )
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "not-needed")
    config = LlamaConfig(
        slots=args.slots, service_s=args.service, answer=hashed_answer, verdict=hashed_verdict
    )
    results: dict[str, Any] = {"servers": args.servers, "slots": args.slots}
    results["service_s"] = args.service
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        servers = [LlamaServer(config).start() for _ in range(args.servers)]
        try:
            results["in_process"] = one_vs_pool(args, servers, root, "local", [])
            if args.ray:
                import ray

                ray.init(num_cpus=args.servers, include_dashboard=False, log_to_driver=False)
                try:
                    ray_extra = ["--executor", "ray", "--shards", str(args.ray_shards)]
                    results["ray"] = one_vs_pool(args, servers, root, "ray", ray_extra)
                finally:
                    ray.shutdown()
        finally:
            for s in servers:
                s.stop()
        results["stopped"] = stopped_part_way(args, root)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
