"""Prompt caching: full-context LoCoMo tokens and cost with and without it (fake provider).

`locoscore run --system full-context` on the given conversations (default: conv-26, its 199
questions), answered by the fake provider, which caches by each provider's published rules
(Anthropic: the marked prefix written once and read after; OpenAI: automatic, 1,024+
tokens in 128-token steps). Each provider is run twice, with the default prompt caching and
with --no-prompt-cache, and the tokens (uncached input, cache read, cache write, output)
and cost of the answer calls are printed beside their ratio. Prices are the built-in
table's (claude-sonnet-4-5: $3 in, $3.75 cache write, $0.30 cache read, $15 out per Mtok;
gpt-4o-mini: $0.15 in, $0.075 cached, $0.60 out). The fake counts four characters a token.

OpenAI caches without being asked, so its --no-prompt-cache run still reads the cache: the
difference there is only the schedule (the first question alone, then the rest), and with
the fake's 50 ms a call the questions sent at once before any reply miss it.

    python bench/prompt_cache.py                  # conv-26
    python bench/prompt_cache.py --conversations all
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.llm.cost import PriceTable
from locoscore.testing.fake_provider import FakeConfig, FakeProvider

MODELS = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-4o-mini"}


def _answer(prompt: str) -> str:
    return "answer " + hashlib.sha256(prompt.encode()).hexdigest()[:8]


def one_run(
    provider: str, dataset: Path, out: Path, conversations: str, cache: bool
) -> dict[str, Any]:
    # 50 ms a call: questions sent together overlap, as with a real provider
    with FakeProvider(FakeConfig(answer=_answer, log_requests=False, latency_s=0.05)) as fake:
        url = fake.url if provider == "anthropic" else fake.openai_url
        args = [
            "run", "--system", "full-context", "--out", str(out), "--dataset", str(dataset),
            "--answer-provider", provider, "--answer-model", MODELS[provider],
            "--answer-base-url", url, "--no-progress",
        ]  # fmt: skip
        if conversations != "all":
            args += ["--conversations", conversations]
        if not cache:
            args.append("--no-prompt-cache")
        started = time.perf_counter()
        result = CliRunner().invoke(app, args)
        if result.exit_code != 0:
            sys.exit(f"run failed: {result.output}")
        wall = time.perf_counter() - started
    calls = json.loads((out / "run.json").read_text())["answer_calls"]
    keys = (
        "made", "input_tokens", "uncached_input_tokens", "cache_read_tokens",
        "cache_write_tokens", "output_tokens", "cost_usd",
    )  # fmt: skip
    return {**{k: calls[k] for k in keys}, "wall_s": round(wall, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", type=Path, default=Path("../shared/data/locomo10.json"))
    parser.add_argument("--conversations", default="conv-26")
    parser.add_argument("--providers", default="anthropic,openai")
    args = parser.parse_args()
    os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-fake-bench")
    os.environ.setdefault("OPENAI_API_KEY", "sk-fake-bench")
    report: dict[str, Any] = {"conversations": args.conversations}
    with tempfile.TemporaryDirectory() as tmp:
        for provider in args.providers.split(","):
            on = one_run(
                provider, args.dataset, Path(tmp) / f"{provider}-on", args.conversations, True
            )
            off = one_run(
                provider, args.dataset, Path(tmp) / f"{provider}-off", args.conversations, False
            )
            ratio = on["cost_usd"] / off["cost_usd"] if off["cost_usd"] else None
            # what the same tokens cost with the cached ones billed as plain input (how
            # locoscore priced them before it read the cache figures)
            flat = PriceTable().cost(MODELS[provider], on["input_tokens"], on["output_tokens"])
            report[provider] = {
                "model": MODELS[provider],
                "with_cache": on,
                "no_prompt_cache": off,
                "cost_ratio": None if ratio is None else round(ratio, 4),
                "cached_tokens_at_input_price_usd": None if flat is None else round(flat, 6),
            }
            print(
                f"{provider} {MODELS[provider]}: {on['made']} calls; with caching "
                f"{on['uncached_input_tokens']:,} uncached + {on['cache_read_tokens']:,} read + "
                f"{on['cache_write_tokens']:,} written in, {on['output_tokens']:,} out, "
                f"${on['cost_usd']:.4f}; --no-prompt-cache {off['uncached_input_tokens']:,} "
                f"uncached + {off['cache_read_tokens']:,} read + {off['cache_write_tokens']:,} "
                f"written in, {off['output_tokens']:,} out, ${off['cost_usd']:.4f}; "
                f"ratio {report[provider]['cost_ratio']}; the cached run's tokens at the plain "
                f"input price: ${report[provider]['cached_tokens_at_input_price_usd']:.4f}",
                flush=True,
            )
    print(json.dumps(report))


if __name__ == "__main__":
    main()
