"""Wall time of one run unsharded vs `--executor ray --shards 2` on this machine, and the merge.

On a LongMemEval-format file (the fixture's ten questions, `--copies` times over, each
haystack padded with `--fillers` filler sessions so ingestion is the work), bm25 with the
extractive answerer: the unsharded run, then the same run as two Ray tasks on a local Ray
(started by the command, its start-up included), then `locoscore merge` of those two
shards alone. Needs the `ray` extra.

    python bench/shards.py                  # the last line is one JSON object
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from locoscore.testing.longmemeval_fixture import make_records


def write_dataset(path: Path, copies: int, fillers: int) -> Path:
    base = make_records(fillers=fillers, filler_turns=4, filler_padding=20)
    records = []
    for k in range(copies):
        for record in base:
            again = copy.deepcopy(record)
            qid = record["question_id"]
            tail = "_abs" if qid.endswith("_abs") else ""
            again["question_id"] = f"{qid.removesuffix('_abs')}x{k:03d}{tail}"
            records.append(again)
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def timed(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "locoscore", *args], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=30, help="questions = 10 x copies")
    parser.add_argument("--fillers", type=int, default=40, help="filler sessions per haystack")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        data = write_dataset(root / "lme.json", options.copies, options.fillers)
        common = [
            "run", "--benchmark", "longmemeval", "--dataset", str(data), "--system", "bm25",
            "--answer-provider", "extractive", "--no-progress", "--skip-probe",
        ]  # fmt: skip
        unsharded = timed([*common, "--out", str(root / "whole")])
        on_ray = timed([*common, "--out", str(root / "ray"), "--executor", "ray", "--shards", "2"])
        shards = [str(root / "ray" / "shards" / f"shard-{i}") for i in range(2)]
        merge = timed(["merge", *shards, "--out", str(root / "merged")])
    figures = {
        "questions": 10 * options.copies,
        "unsharded_s": round(unsharded, 2),
        "ray_2_shards_s": round(on_ray, 2),
        "merge_s": round(merge, 2),
        "ratio_unsharded_to_ray": round(unsharded / on_ray, 2),
    }
    print(
        f"{figures['questions']} questions: unsharded {unsharded:.1f}s, --executor ray "
        f"--shards 2 {on_ray:.1f}s (x{figures['ratio_unsharded_to_ray']}), merge {merge:.1f}s"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
