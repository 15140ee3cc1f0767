"""The local-models page runs as written: each `llama-server` line starts the llama.cpp
stand-in with the same flags (`--alias` its served name, `-np` its slots, `-c` its window,
usage in every reply as llama-server sends it), and the page's `locoscore` commands run
against them (the port swapped for the stand-in's): the served name is the one asked (no
mismatch, a price could apply), the server's usage is read (not counted locally), the run
is the page's small one, records its --timeout, and a second model judges."""

from __future__ import annotations

import json
import shlex
import warnings
from itertools import pairwise
from pathlib import Path

import pytest
from doc_blocks import REPO, blocks, commands
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.testing.llama_server import LlamaConfig, LlamaServer

PAGE = REPO / "docs" / "how-to" / "local-models.md"
LOCOMO = REPO.parent / "shared" / "data" / "locomo10.json"


def _flags(command: str) -> dict[str, str]:
    words = shlex.split(command)
    return {w: v for w, v in pairwise(words) if w.startswith("-")}


def test_every_command_of_the_page_runs_against_the_stand_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not LOCOMO.is_file():
        pytest.skip(f"no LoCoMo at {LOCOMO}")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOCOSCORE_DATASET", str(LOCOMO))
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)  # a local server needs no key
    lines = [c for c, _ in commands(blocks(PAGE)[0].code)]
    starts = [c for c in lines if c.startswith("llama-server ")]
    assert len(starts) == 2  # the answerer's server and the judge's
    servers, urls = [], {}
    try:
        for start in starts:
            flags = _flags(start)
            assert "--alias" in flags and "--no-repack" not in flags, start
            config = LlamaConfig(
                model=flags["--alias"], slots=int(flags["-np"]), n_ctx=int(flags["-c"]), usage=True
            )
            server = LlamaServer(config).start()
            servers.append(server)
            urls[f"http://127.0.0.1:{flags['--port']}/v1"] = server.openai_url
        ran = []
        for line in (c for c in lines if c.startswith("locoscore ")):
            for page_url, real in urls.items():
                line = line.replace(page_url, real)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = CliRunner().invoke(app, shlex.split(line)[1:])
            assert result.exit_code == 0, (line, result.output)
            ran.append([str(w.message) for w in caught])
    finally:
        for server in servers:
            server.stop()
    assert len(ran) == 2
    assert not any("self-judging" in w or "served" in w for w in ran[0] + ran[1]), ran

    run = json.loads((tmp_path / "out" / "local" / "run.json").read_text())
    answer = run["answer"]
    assert answer["served"]["models"] == [answer["model"]] == ["smollm2-135m"]
    assert answer["timeout_s"] == 120.0
    assert run["questions"] == 20 and run["sample"] is not None  # the page's small run
    assert run["answer_calls"]["usage"] != "counted locally"
    assert run["answer_calls"]["input_tokens"] > 0  # the server's own counts
    judge = json.loads((tmp_path / "out" / "local" / "summary.json").read_text())["judge"]
    assert judge["model"] == "qwen2.5-0.5b-instruct" != answer["model"]
    assert judge["served"]["models"] == ["qwen2.5-0.5b-instruct"]
    assert servers[0].completions >= 20 and servers[1].completions > 0
