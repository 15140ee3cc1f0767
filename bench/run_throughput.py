"""Run throughput: `locoscore run` vs the schedule of Mem0's original harness.

All 1,986 LoCoMo questions with the `bm25` system, answered by an LLM on the fake provider
(its own process; fixed latency per call, a sliding requests-per-minute limit). First the
real code path: `resolve_run` + `execute_run` (shared pool, adaptive concurrency, answer
cache, run state), then `write_run_outputs`, and `lost` is read back from the
predictions.jsonl it wrote. Then, in the same run, Mem0's original schedule with the same
system, the same SDK client and the same answer prompt: the conversations in parallel, one
question at a time in each (search, then the answer call). That schedule is strictly
periodic per conversation, so it runs on a prefix of each conversation's questions and is
extrapolated linearly: the seed's wall time is the longest conversation's question count
times its measured time per question.

Time can be scaled as in judge_throughput.py: --scale divides the answer latency and the
rate-limit window, so the ratio and the share of the limit stay those of the unscaled
scenario (1.5 s per answer call, 4,000 requests per minute) as long as the client's own CPU
time is negligible. Here it is not: each question costs a few milliseconds of CPU (search,
tokens counted for the context, the SDK's HTTP stack, the run state), and bm25 ingestion
about 0.1-0.6 s per conversation, none of which shrinks with the scale. At --scale 2.5 the
pool would need 213 calls/s (128 in flight / 0.6 s), which a bare SDK loop does not reach
on a small shared machine, so the default is --scale 1 (real time): the whole bench then
takes about 75 s, since the pass itself is only ~35 s. Ingestion times are in real seconds:
bm25 from the run's own per-conversation measures, and `embedding` ingested on its own
against a second fake provider whose per-request latency (--embedding-latency) is never
scaled.

--concurrency 128: with 1.5 s per call, a call rate equal to the limit's 66.7 calls/s
needs 100 calls in flight (64 give only 42.7/s); 128 leaves headroom for calls that come
back late, and the adaptive limiter shrinks on the first 429 if the provider pushes back.
The whole pass (1,986 calls) is fewer calls than one window allows (4,000), so the sliding
window never binds and a share a little above 1 is possible.

`rpm_share` is the answering phase's rate over the limit's rate: questions answered per
second from the first answer call sent (estimated as the first answer back minus the
median answer latency) to the last answer back. `rpm_share_with_ingestion` divides by the
whole run instead (start of the system, ingestion, answers): the pipeline starts a
conversation's questions as soon as it is ingested, but bm25's ingestion is CPU on the
event loop, so no answer call goes out until the first conversations are in.

    python bench/run_throughput.py            # the last line is one JSON object
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from locoscore.data.conversation import Conversation, Query, Question
from locoscore.errors import InputError
from locoscore.llm.providers import ProviderConfig, make_client
from locoscore.results.layout import PREDICTIONS
from locoscore.run.answerer import AnswerSettings
from locoscore.run.ingest import ingest_conversation
from locoscore.run.outputs import write_run_outputs
from locoscore.run.pipeline import execute_run, resolve_run
from locoscore.run.placed_context import place_context
from locoscore.run.settings import ResolvedRun, RunSettings
from locoscore.systems.base import MemorySystem
from locoscore.systems.context import SystemContext
from locoscore.systems.registry import make_system, system_class

ANSWER_MODEL = "fake-answer-model"
EMBEDDING_MODEL = "fake-embedding-model"


def start_fake(latency_s: float, rpm: int, window_s: float) -> tuple[subprocess.Popen[str], str]:
    command = [
        sys.executable, "-m", "locoscore.testing.fake_provider", "--port", "0",
        "--latency", f"{latency_s}", "--rpm", str(rpm), "--rpm-window", f"{window_s}",
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    return process, line.split()[-1]


def stop_fake(process: subprocess.Popen[str]) -> None:
    process.terminate()
    process.wait(timeout=10)


def server_stats(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}/_fake/stats", timeout=10) as response:
        stats: dict[str, Any] = json.loads(response.read())
    return stats


class FinishTimes:
    """A progress sink for `execute_run` that notes when each question finished."""

    def __init__(self) -> None:
        self.finished: list[float] = []

    def start(self, total: int, done: int, cached: int) -> None:
        pass

    def update(
        self, done: int, failed: int, tokens: int, cost_usd: float | None, calls: int | None = None
    ) -> None:
        self.finished.extend([time.monotonic()] * done)  # done 0: ingestion's progress

    def status(self, text: str) -> None:
        pass

    def stop(self) -> None:
        pass


def count_lost(out: Path, questions: list[Question]) -> int:
    """Questions with no line in predictions.jsonl, an empty prediction, or an error."""
    answered = set()
    with (out / PREDICTIONS).open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if record["error"] is None and record["prediction"].strip():
                answered.add(record["question_id"])
    return sum(1 for q in questions if q.question_id not in answered)


async def seed_conversation(
    run: ResolvedRun, system: MemorySystem, client: Any, questions: list[Question]
) -> tuple[float, int]:
    """Mem0's loop for one conversation: search, then the answer call, one question at a time."""
    top_k, ok = run.settings.top_k, 0
    started = time.monotonic()
    for q in questions:
        query = Query(q.conversation_id, q.question_id, q.text, top_k, q.date_iso)
        result = await system.search(query)
        context = place_context(result.items[:top_k], run.settings.context_budget)
        prompt = run.answer.prompt.render(q.text, context.text, q.date_iso)
        try:
            replies = await client.complete(prompt)
        except Exception:  # the seed's harness would record an empty answer
            continue
        ok += int(bool(replies and replies[0].text.strip()))
    return time.monotonic() - started, ok


async def seed_schedule(run: ResolvedRun, prefix: int, state_dir: Path) -> dict[str, Any]:
    """Each conversation's first `prefix` questions on Mem0's schedule (conversations in
    parallel), extrapolated per conversation to all its questions; the wall is the longest."""
    system = make_system(run.settings.system, run.settings.system_options, SystemContext(state_dir))
    step = run.answer
    assert step.model is not None and step.sampling is not None
    client = make_client(
        ProviderConfig(
            provider=step.provider,
            model=step.model,
            sampling=step.sampling,
            max_tokens=step.settings.max_tokens,
            base_url=step.settings.base_url,
            timeout_s=step.settings.timeout_s,
        )
    )
    by_conv: dict[str, list[Question]] = {}
    for q in run.questions:
        by_conv.setdefault(q.conversation_id, []).append(q)
    await system.start()
    try:
        for conversation in run.conversations:  # milliseconds for bm25; not timed
            await ingest_conversation(system, conversation)
        ids = [c.conversation_id for c in run.conversations]
        measured = await asyncio.gather(
            *(seed_conversation(run, system, client, by_conv[cid][:prefix]) for cid in ids)
        )
    finally:
        await client.aclose()
        await system.aclose()
    per_conv = {}
    for cid, (elapsed, ok) in zip(ids, measured, strict=True):
        asked = min(prefix, len(by_conv[cid]))
        per_conv[cid] = {
            "asked": asked,
            "ok": ok,
            "measured_s": elapsed,
            "extrapolated_s": elapsed / asked * len(by_conv[cid]),
        }
    return per_conv


async def ingest_all(system: MemorySystem, conversations: list[Conversation]) -> dict[str, Any]:
    """Every conversation ingested once, all at once (per-conversation walls as measured)."""
    await system.start()
    try:
        measures = await asyncio.gather(*(ingest_conversation(system, c) for c in conversations))
    finally:
        await system.aclose()
    return {m.conversation_id: m.to_json() for m in measures}


def embedding_ingestion(
    conversations: list[Conversation], latency_s: float, rpm: int, state_dir: Path
) -> dict[str, Any]:
    """Per-conversation ingestion of the `embedding` system, or why it was skipped."""
    try:
        system_class("embedding")
    except InputError as exc:  # written on another branch; this runs once it has landed
        return {"skipped": f"the embedding system is not available here ({exc})"}
    fake, url = start_fake(latency_s, rpm, 60.0)
    try:
        system = make_system(
            "embedding",
            {"model": EMBEDDING_MODEL, "base_url": f"{url}/v1"},
            SystemContext(state_dir),
        )
        per_conv = asyncio.run(ingest_all(system, conversations))
        return {
            "request_latency_s": latency_s,
            "requests": server_stats(url)["requests"],
            "per_conversation_s": {cid: m["wall_s"] for cid, m in per_conv.items()},
            "errors": {cid: m["error"] for cid, m in per_conv.items() if m["error"]},
        }
    finally:
        stop_fake(fake)


def answering_share(
    finished: list[float], records: list[dict[str, Any]], answered: int, limit: float
) -> float:
    """Answers per second from the first call sent to the last answer back, over the limit."""
    latencies = sorted(r["answer_latency_s"] for r in records if r["answer_latency_s"])
    if not finished or not latencies:
        return 0.0
    phase = max(finished) - (min(finished) - latencies[len(latencies) // 2])
    return answered / phase / limit


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=None, help="default $LOCOSCORE_DATASET")
    parser.add_argument("--conversations", default=None, help="comma-separated sample ids")
    parser.add_argument("--latency", type=float, default=1.5, help="seconds per answer (real)")
    parser.add_argument("--rpm", type=int, default=4000, help="requests per minute (real)")
    parser.add_argument("--scale", type=float, default=1.0, help="divide answer durations by")
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--seed-prefix", type=int, default=12, help="seed questions/conv")
    parser.add_argument(
        "--embedding-latency", type=float, default=0.2, help="seconds per embeddings request"
    )
    args = parser.parse_args()

    latency, window = args.latency / args.scale, 60.0 / args.scale
    limit_per_s = args.rpm / window
    wanted = [c.strip() for c in args.conversations.split(",")] if args.conversations else None
    fake, url = start_fake(latency, args.rpm, window)
    import openai  # noqa: F401 - loaded before timing: a fixed cost, not the schedule's

    work = Path(tempfile.mkdtemp(prefix="locoscore-run-bench-"))
    try:
        settings = RunSettings(
            system="bm25",
            out=work / "run",
            dataset=args.dataset,
            conversations=wanted,
            concurrency=args.concurrency,
            answer=AnswerSettings(
                provider="openai-compatible", model=ANSWER_MODEL, base_url=f"{url}/v1"
            ),
        )
        resolved = resolve_run(settings)
        calls = len(resolved.questions)
        print(
            f"scenario: {calls:,} questions, bm25, {args.latency:g} s per answer call, "
            f"{args.rpm:,} requests/min; time scaled 1/{args.scale:g}: latency {latency:.3f} s, "
            f"window {window:.1f} s, limit {limit_per_s:.1f} calls/s; "
            f"--concurrency {args.concurrency}"
        )
        finish_times = FinishTimes()
        started = time.monotonic()
        result = asyncio.run(execute_run(resolved, progress=finish_times))
        loco_wall = time.monotonic() - started
        write_run_outputs(result, settings.out)
        lost = count_lost(settings.out, resolved.questions)
        stats = server_stats(url)
        answered = calls - lost
        rpm_share_with_ingestion = answered / loco_wall / limit_per_s
        rpm_share = answering_share(finish_times.finished, result.records, answered, limit_per_s)
        print(
            f"locoscore: {loco_wall:.1f} s for {calls:,} questions ({answered / loco_wall:.1f}/s, "
            f"{rpm_share_with_ingestion:.1%} of the limit; answering phase {rpm_share:.1%}); "
            f"lost {lost}; answer requests {result.calls_made:,}; HTTP statuses "
            f"{stats['status_counts']}"
        )
        bm25_ingest = {cid: m["wall_s"] for cid, m in result.ingestion.items()}
        print(f"bm25 ingestion per conversation (s): {bm25_ingest}")

        per_conv = asyncio.run(seed_schedule(resolved, args.seed_prefix, work / "seed"))
        seed_wall = max(c["extrapolated_s"] for c in per_conv.values())
        longest = max(per_conv, key=lambda cid: per_conv[cid]["extrapolated_s"])
        seed_ok = sum(c["ok"] for c in per_conv.values())
        seed_asked = sum(c["asked"] for c in per_conv.values())
        extrapolated = any(
            c["asked"] < sum(1 for q in resolved.questions if q.conversation_id == cid)
            for cid, c in per_conv.items()
        )
        print(
            f"seed schedule: the first {args.seed_prefix} questions of each of "
            f"{len(per_conv)} conversations in parallel ({seed_ok}/{seed_asked} answered), "
            f"{'extrapolated linearly' if extrapolated else 'measured'} to each conversation's "
            f"questions; longest {longest}: {seed_wall:.0f} s (unscaled: "
            f"{seed_wall * args.scale / 60:.1f} min vs locoscore "
            f"{loco_wall * args.scale / 60:.1f} min)"
        )
        embedding = embedding_ingestion(
            resolved.conversations, args.embedding_latency, args.rpm, work / "embedding"
        )
    finally:
        stop_fake(fake)
        shutil.rmtree(work, ignore_errors=True)
    print(f"embedding ingestion: {embedding}")
    ratio = seed_wall / loco_wall
    print(
        f"ratio {ratio:.1f}x (goal >= 8), rpm share {rpm_share:.2f} (goal >= 0.9; with "
        f"ingestion {rpm_share_with_ingestion:.2f}), lost {lost}"
    )
    print(
        json.dumps(
            {
                "questions": calls,
                "concurrency": args.concurrency,
                "scale": args.scale,
                "locoscore_wall_s": round(loco_wall, 2),
                "seed_wall_s": round(seed_wall, 2),
                "seed_extrapolated": extrapolated,
                "ratio": round(ratio, 2),
                "rpm_share": round(rpm_share, 3),
                "rpm_share_with_ingestion": round(rpm_share_with_ingestion, 3),
                "lost": lost,
                "answer_requests": result.calls_made,
                "http_statuses": stats["status_counts"],
                "ingestion_s": {"bm25": bm25_ingest, "embedding": embedding},
            }
        )
    )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OPENAI_API_KEY", "bench-not-a-real-key")
    raise SystemExit(main())
