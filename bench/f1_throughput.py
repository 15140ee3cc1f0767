"""Throughput of the official-rules LoCoMo F1: locoscore vs an unmemoised reference.

Scores every LoCoMo question (predictions: the gold answer for odd items, the question text
for even ones, so both full and partial overlaps occur), repeated until there are at least
100,000 predictions. Both implementations run in this process on the same inputs; the
scores must be identical. Last line: one JSON object with the figures.

    python bench/f1_throughput.py [--dataset ../shared/data/locomo10.json] [--min 100000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference_locomo import reference_score

from locoscore.benchmarks.locomo.data import load_dataset
from locoscore.benchmarks.locomo.scoring.locomo import score_f1_locomo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    repo = Path(__file__).resolve().parents[1]
    parser.add_argument("--dataset", default=str(repo.parent / "shared/data/locomo10.json"))
    parser.add_argument("--min", type=int, default=100_000, dest="minimum")
    args = parser.parse_args()

    questions = load_dataset(args.dataset).all_questions()
    base = [
        (qa.gold_text if i % 2 else qa.question, qa.gold, qa.category)
        for i, qa in enumerate(questions)
    ]
    repeats = -(-args.minimum // len(base))
    work = base * repeats

    start = time.perf_counter()
    ours = [score_f1_locomo(p, a, c) for p, a, c in work]
    ours_s = time.perf_counter() - start

    start = time.perf_counter()
    ref = [reference_score(p, a, c) for p, a, c in work]
    ref_s = time.perf_counter() - start

    identical = all(float(a) == float(b) for a, b in zip(ours, ref, strict=True))
    result = {
        "predictions": len(work),
        "locoscore_per_s": round(len(work) / ours_s, 1),
        "reference_per_s": round(len(work) / ref_s, 1),
        "ratio": round(ref_s / ours_s, 2),
        "identical": identical,
    }
    print(f"predictions scored: {len(work):,} ({len(base)} questions x {repeats})")
    print(f"locoscore:  {result['locoscore_per_s']:>12,.0f} predictions/s ({ours_s:.2f} s)")
    print(f"reference:  {result['reference_per_s']:>12,.0f} predictions/s ({ref_s:.2f} s)")
    print(f"ratio:      {result['ratio']}x   identical scores: {identical}")
    print(json.dumps(result))
    if not identical:
        sys.exit(1)


if __name__ == "__main__":
    main()
