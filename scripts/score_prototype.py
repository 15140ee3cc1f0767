"""The seed's prototype scorer, on locoscore's library: F1, a 10-run LLM judge, latency.

    python scripts/score_prototype.py [RESULTS_JSON] [--out DIR] [--runs 10]
                                      [--provider anthropic] [--model ...] [--base-url ...]
                                      [--fake-provider]

RESULTS_JSON defaults to examples/prototype_results.json (an invented two-conversation
example). `--fake-provider` judges against locoscore's built-in fake provider, for a demo
without an API key (its verdicts are not real judgments). The script calls the same library
functions as `locoscore score` and `locoscore judge`; it holds no scoring logic of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import tempfile
from pathlib import Path

from rich.console import Console

from locoscore.benchmarks.locomo.categories import GROUPS
from locoscore.benchmarks.locomo.data.models import PredictionRecord
from locoscore.benchmarks.locomo.data.readers import read_predictions
from locoscore.benchmarks.locomo.judge import judge_pass
from locoscore.benchmarks.locomo.report_parts import LEXICAL_CAPTION
from locoscore.benchmarks.locomo.scoring.protocols import get_protocol
from locoscore.benchmarks.locomo.scoring.run import lexical_summary, score_records
from locoscore.errors import InputError
from locoscore.generic.judge_terminal import judge_table
from locoscore.generic.report_terminal import (
    lexical_signatures,
    lexical_table,
    print_signatures,
)
from locoscore.judge import JudgeSettings
from locoscore.stats import LatencyStats

DEFAULT_RESULTS = Path(__file__).resolve().parents[1] / "examples" / "prototype_results.json"
console = Console()


def latency_lines(records: list[PredictionRecord]) -> list[str]:
    lines = []
    for label, field in (("search", "search_latency_s"), ("total", "total_latency_s")):
        stats = LatencyStats.from_values([getattr(r, field) for r in records])
        if stats is None:
            lines.append(f"{label} latency: not recorded")
            continue
        lines.append(
            f"{label} latency (s): mean {stats.mean:.3f}, p50 {stats.p50:.3f}, "
            f"p95 {stats.p95:.3f}, p99 {stats.p99:.3f} over {stats.count} questions"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Score prototype results: F1, J, latency.")
    parser.add_argument("results", nargs="?", type=Path, default=DEFAULT_RESULTS)
    parser.add_argument("--out", type=Path, default=None, help="keep the outputs here")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--provider", default="anthropic")
    parser.add_argument("--model", default=None)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--fake-provider", action="store_true", help="demo without a key")
    args = parser.parse_args(argv)

    try:
        read = read_predictions(args.results)
    except InputError as exc:
        console.print(f"[red]error:[/] {exc}", highlight=False)
        return 2
    records = read.records
    spec = get_protocol("spec")
    summary = lexical_summary(score_records(records, [spec]), [spec])
    console.print(lexical_table(summary, GROUPS, LEXICAL_CAPTION, ["spec"]))
    print_signatures(console, lexical_signatures(summary, ["spec"]))

    with contextlib.ExitStack() as stack:
        base_url = args.base_url
        if args.fake_provider:
            from locoscore.testing.fake_provider import FakeConfig, FakeProvider

            fake = stack.enter_context(FakeProvider(FakeConfig()))
            base_url = fake.url if args.provider == "anthropic" else fake.openai_url
            os.environ.setdefault("ANTHROPIC_API_KEY", "fake-provider-demo")
            os.environ.setdefault("OPENAI_API_KEY", "fake-provider-demo")
        out = args.out or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        settings = JudgeSettings(
            provider=args.provider, model=args.model, base_url=base_url, runs=args.runs
        )
        try:
            result = asyncio.run(judge_pass(records, settings, out))
        except InputError as exc:
            console.print(f"[red]error:[/] {exc}", highlight=False)
            return 2
    assert result.summary is not None
    console.print(judge_table(result.summary, GROUPS))
    print_signatures(console, [result.summary["signature"]])
    for line in latency_lines(records):
        console.print(line)
    if args.fake_provider:
        console.print("[yellow]judged by the built-in fake provider: not real verdicts[/]")
    conversations = len({r.sample_id or r.conversation for r in records})
    judged = result.summary["overall"]["count"]
    console.print(
        f"\nNote: this is a prototype on {len(records)} questions ({judged} judged) from "
        f"{conversations} conversation(s). `locoscore judge` on the full LoCoMo set "
        f"(1,540 questions) gives publishable numbers."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
