"""LoCoMo's numbers, before and after the benchmark-shape refactor: the same commands on the
real data, reduced to every number they write.

`canonical(folder)` keeps every number of summary.json, scores.jsonl and judgments.jsonl, and
drops only what describes how a run went (timings, latencies, dates, paths, the judge's
free-text explanation and the per-call fence token hash), so two runs of the same commands on
the same code compare equal. `python tests/parity/locomo_parity.py --write` records the
snapshot from the code checked out; the test compares today's code against it.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SNAPSHOT = HERE / "locomo_snapshot.json"
REPO = HERE.parents[1]
SHARED = REPO.parent / "shared" / "data"
LOCOMO = SHARED / "locomo10.json"
MEMOBASE = SHARED / "peers" / "memobase_eval_0710_3000.json"

# Leaves that describe the run, not the result: when, where, how long, how fast.
VOLATILE = (
    "latency",
    "seconds",
    "elapsed",
    "duration",
    "wall",
    "_at",
    "time",
    "date",
    "path",
    "started",
    "finished",
    "created",
    "rate",
    "throughput",
    "per_minute",
    "concurrency",
    "explanation",
    "prompt_hash",
    "version",
    "host",
    "url",
    "pid",
    "attempts",
)


def _volatile(key: str) -> bool:
    return any(part in key.lower() for part in VOLATILE)


def numbers(value: Any, prefix: str = "") -> Iterator[tuple[str, float | int | bool]]:
    """Every numeric leaf of a JSON value, by its path (volatile keys left out)."""
    if isinstance(value, dict):
        for key in sorted(value):
            if not _volatile(str(key)):
                yield from numbers(value[key], f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from numbers(item, f"{prefix}[{index}]")
    elif isinstance(value, bool | int | float):
        yield prefix, value


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _digest(rows: list[list[Any]]) -> str:
    payload = json.dumps(sorted(rows, key=json.dumps), separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()


def canonical(folder: Path) -> dict[str, Any]:
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    scores = _jsonl(folder / "scores.jsonl")
    out: dict[str, Any] = {
        "summary": dict(numbers(summary)),
        "scores_rows": len(scores),
        "scores": _digest([sorted(numbers(row)) for row in scores]),
    }
    judgments = folder / "judgments.jsonl"
    if judgments.exists():
        rows = _jsonl(judgments)
        out["judgments_rows"] = len(rows)
        out["judgments"] = _digest(
            [[r.get("question"), r.get("run"), r.get("score"), r.get("error")] for r in rows]
        )
    return out


def commands(work: Path, fake_url: str) -> dict[str, list[list[str]]]:
    """The commands whose numbers must not move, by results folder."""
    judge = ["--base-url", fake_url, "--runs", "2", "--no-progress", "--dataset", str(LOCOMO)]
    memobase, bm25 = str(work / "memobase"), str(work / "bm25")
    return {
        "memobase": [
            ["score", str(MEMOBASE), "--out", memobase, "--dataset", str(LOCOMO)],
            ["judge", str(MEMOBASE), "--out", memobase, *judge],
        ],
        "bm25": [
            ["run", "--system", "bm25", "--answer-provider", "extractive", "--out", bm25,
             "--conversations", "conv-26", "--no-progress", "--skip-probe",
             "--dataset", str(LOCOMO)],
            ["judge", str(work / "bm25" / "predictions.jsonl"), "--out", bm25, *judge],
        ],
    }  # fmt: skip


def run_all(work: Path) -> dict[str, Any]:
    """Run every command (a fake judge with the deterministic reference-recall rule) and
    return each folder's canonical numbers."""
    from locoscore.testing.fake_provider import FakeConfig, FakeProvider, reference_recall_score

    env = {"ANTHROPIC_API_KEY": "dummy", "OPENAI_API_KEY": "dummy", "PATH": ""}
    import os

    env = {**os.environ, **env, "PATH": os.environ.get("PATH", "")}
    env.pop("LOCOSCORE_ERRATA", None)
    env["XDG_CACHE_HOME"] = str(work / "user-cache")
    result: dict[str, Any] = {}
    config = FakeConfig(latency_s=0.0, verdict=reference_recall_score)
    with FakeProvider(config) as fake:
        for name, steps in commands(work, fake.url).items():
            for step in steps:
                done = subprocess.run(
                    [sys.executable, "-m", "locoscore", *step],
                    env=env, capture_output=True, text=True, check=False,
                )  # fmt: skip
                if done.returncode != 0:
                    raise RuntimeError(f"{step[0]} failed: {done.stdout}\n{done.stderr}")
            result[name] = canonical(work / name)
    return result


if __name__ == "__main__":
    import tempfile

    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/parity/locomo_parity.py --write")
    with tempfile.TemporaryDirectory() as tmp:
        snapshot = run_all(Path(tmp))
    SNAPSHOT.write_text(json.dumps(snapshot, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {SNAPSHOT}")
