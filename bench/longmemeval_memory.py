"""Peak memory of loading a large LongMemEval file: locoscore's streaming loader (check every
record, index it, then read every haystack back as a system would ingest it) vs the
reference, `json.load` of the whole file. Each runs in its own process (ru_maxrss is a
process' peak). The file is generated in the released schema (`_m` is 2.7 GB; the default
here is ~300 MB, `--mb` to change). Last line: one JSON object with the figures.

    python bench/longmemeval_memory.py [--mb 300]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STREAMING = """
import sys, warnings
warnings.simplefilter("ignore")
from locoscore.benchmarks import get_benchmark
bench = get_benchmark("longmemeval")
data = bench.load(sys.argv[1])
turns = 0
for conversation in bench.conversations(data):
    for session in conversation.sessions:
        turns += len(session.turns)
print(turns)
"""
REFERENCE = """
import json, sys
records = json.load(open(sys.argv[1], encoding="utf-8"))
print(sum(len(s) for r in records for s in r["haystack_sessions"]))
"""


def measure(code: str, path: Path) -> tuple[int, float, int]:
    """(turns counted, seconds, peak RSS in MiB) of `code` in a fresh interpreter."""
    started = time.perf_counter()
    probe = code + "\nimport resource\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    out = subprocess.run(
        [sys.executable, "-c", probe, str(path)], check=True, capture_output=True, text=True
    ).stdout.split()
    return int(out[0]), time.perf_counter() - started, int(out[1]) // 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=300)
    args = parser.parse_args()
    from locoscore.testing.longmemeval_fixture import make_records

    # 10 questions; each filler session ~2 turns of ~(padding x 3) bytes
    padding = 1000
    fillers = max(3, args.mb * 1_000_000 // (10 * 2 * 3 * padding))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "longmemeval_large.json"
        with path.open("w", encoding="utf-8") as handle:
            json.dump(make_records(fillers=fillers, filler_padding=padding), handle)
        size_mb = path.stat().st_size / 1e6
        ours = measure(STREAMING, path)
        ref = measure(REFERENCE, path)
    assert ours[0] == ref[0], (ours, ref)  # the same turns, read both ways
    figures = {
        "file_mb": round(size_mb, 1),
        "turns": ours[0],
        "streaming_peak_mib": ours[2],
        "reference_peak_mib": ref[2],
        "peak_ratio": round(ours[2] / ref[2], 3),
        "streaming_s": round(ours[1], 2),
        "reference_s": round(ref[1], 2),
        "time_ratio": round(ours[1] / ref[1], 3),
    }
    print(f"file {size_mb:.0f} MB: streaming peak {ours[2]} MiB vs json.load {ref[2]} MiB")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
