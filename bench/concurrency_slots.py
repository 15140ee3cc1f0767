"""Answer-call concurrency against a local server with N slots (the stand-in llama.cpp).

For N = 1, 4, 16 the stand-in serves N requests at once (each `--service` seconds) and
queues the rest. The same answer calls go through locoscore's answer step (discovery,
`CallPool`, adaptive limiter: the real code path) at its defaults (`--concurrency 64`), and
then at fixed concurrencies (no adaptation) for reference. A call times out after
`--timeout` seconds, queued time at the server included, as the SDK's timeout does.

Printed per N: answers lost, throughput (answers/s), and the ratio of the default's
throughput to the best fixed concurrency's (goal: 0 lost, ratio >= 0.9), for a server that
reports its slots (`/props`) and one that reports nothing (`--no-props` behaviour: the
limiter starts small and adapts to queueing, timeouts and 503s).

    python bench/concurrency_slots.py          # the last line is one JSON object
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from locoscore.benchmarks.answer_prompt import default_answer_prompt
from locoscore.llm.limiter import AdaptiveLimiter
from locoscore.run.answerer import Answerer, AnswerSettings, resolve_answer_step
from locoscore.run.placed_context import PlacedContext
from locoscore.run.store import RunStore
from locoscore.testing.llama_server import LlamaConfig, LlamaServer


def fixed_levels(slots: int) -> list[int]:
    """The fixed concurrencies compared: around the slot count (below it is never better)."""
    return sorted({max(1, slots // 2), slots, slots + 1, 2 * slots, 4 * slots, 64})


async def answer_all(answerer: Answerer, prompts: list[str]) -> tuple[int, float]:
    started = time.monotonic()
    empty = PlacedContext((), "", 0, 0)
    answers = await asyncio.gather(*(answerer.answer(p, empty) for p in prompts))
    await answerer.aclose()
    return sum(1 for a in answers if a.error is not None), time.monotonic() - started


def one_pass(
    server: LlamaServer, prompts: list[str], timeout: float, fixed: int | None, tmp: Path
) -> dict[str, Any]:
    settings = AnswerSettings(
        provider="openai-compatible",
        model="m",
        base_url=server.openai_url,
        timeout_s=timeout,
        retry_base_delay_s=0.05,
        concurrency=64,
    )
    step = resolve_answer_step(settings, default_answer_prompt())
    store = RunStore(tmp / f"state-{time.monotonic_ns()}.sqlite")
    answerer = Answerer(step, store)
    if fixed is not None:  # the reference: a fixed number in flight, no adaptation
        answerer.limiter = AdaptiveLimiter(fixed, fixed)
        answerer.limiter.on_success = lambda *a, **k: None  # type: ignore[method-assign]
        answerer.pool.limiter = answerer.limiter
    lost, wall = asyncio.run(answer_all(answerer, prompts))
    store.close()
    return {
        "lost": lost,
        "throughput": round(len(prompts) / wall, 2),
        "final": int(answerer.limiter.limit),
    }


def bench(slots: int, props: bool, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    prompts = [f"Question {i}: what happened on day {i}?" for i in range(args.calls * slots)]
    config = LlamaConfig(slots=slots, service_s=args.service, props=props)
    with LlamaServer(config) as server:
        default = one_pass(server, prompts, args.timeout, None, tmp)
        fixed = {c: one_pass(server, prompts, args.timeout, c, tmp) for c in fixed_levels(slots)}
    best_c = max(fixed, key=lambda c: fixed[c]["throughput"])
    ratio = default["throughput"] / fixed[best_c]["throughput"]
    return {
        "slots": slots,
        "props": props,
        "default": default,
        "best_fixed": best_c,
        "best_fixed_throughput": fixed[best_c]["throughput"],
        "lost_at_fixed": {c: f["lost"] for c, f in fixed.items()},
        "ratio": round(ratio, 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slots", default="1,4,16")
    parser.add_argument("--service", type=float, default=0.2, help="seconds per request")
    parser.add_argument("--calls", type=int, default=12, help="answer calls per slot")
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds per call")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "not-needed")
    import tempfile

    import openai  # noqa: F401  # imported (and tiktoken loaded) before any pass is timed

    from locoscore.tokens import count_tokens

    count_tokens("warm up")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for props in (True, False):
            for slots in (int(s) for s in args.slots.split(",")):
                r = bench(slots, props, args, Path(tmp))
                results.append(r)
                print(
                    f"slots {slots:>2} ({'/props' if props else 'no /props'}): default "
                    f"{r['default']['throughput']:.1f}/s lost {r['default']['lost']}, ended at "
                    f"{r['default']['final']}; best fixed {r['best_fixed']} "
                    f"{r['best_fixed_throughput']:.1f}/s; ratio {r['ratio']:.2f}; lost at "
                    f"fixed {r['lost_at_fixed']}",
                    file=sys.stderr,
                )
    print(json.dumps({"service_s": args.service, "timeout_s": args.timeout, "runs": results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
