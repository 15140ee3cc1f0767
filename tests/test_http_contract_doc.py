"""docs/http-contract.md: its worked example is what the reference server answers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

from locoscore.systems.context import SystemContext
from locoscore.systems.http_contract import CONTRACT_VERSION
from locoscore.systems.registry import make_system
from locoscore.systems.serve import MemoryServer

DOC = Path(__file__).resolve().parents[1] / "docs" / "http-contract.md"
TOKEN = "demo-token"
SESSION = {
    "conversation_id": "demo-1",
    "session_index": 1,
    "date_raw": "4:04 pm on 20 January, 2023",
    "date_iso": "2023-01-20T16:04",
    "speakers": ["Ana", "Ben"],
    "turns": [
        {
            "speaker": "Ana",
            "dia_id": "D1:1",
            "text": "I adopted a puppy last weekend!",
            "caption": None,
        },
        {
            "speaker": "Ben",
            "dia_id": "D1:2",
            "text": "Congrats! What is its name?",
            "caption": None,
        },
        {
            "speaker": "Ana",
            "dia_id": "D1:3",
            "text": "Miso. Here she is at the beach.",
            "caption": "a small brown dog running on a beach",
        },
    ],
}
SEARCH = {
    "conversation_id": "demo-1",
    "question_id": "demo-1#0",
    "query": "What is the name of Ana's dog?",
    "top_k": 2,
    "date_iso": "2023-01-20T16:04",
}


def _documented_replies() -> list[object]:
    example = DOC.read_text().split("## A worked example", 1)[1].split("## ", 1)[0]
    return [json.loads(line) for line in re.findall(r"^\{.*\}$", example, flags=re.M)]


def test_the_worked_example_is_what_the_server_answers(tmp_path):
    auth = {"authorization": f"Bearer {TOKEN}"}
    system = make_system("bm25", {}, SystemContext(tmp_path))
    with MemoryServer(system, token=TOKEN) as server:
        base = server.url + "/v1/conversations/demo-1"
        live = [
            httpx.get(server.url + "/v1/info", headers=auth).json(),
            httpx.post(base + "/reset", headers=auth).json(),
            httpx.post(base + "/sessions", headers=auth, json=SESSION).json(),
            httpx.post(base + "/search", headers=auth, json=SEARCH).json(),
            httpx.post(base + "/search", json={}).json(),
            httpx.post(base + "/search", headers=auth, json=SEARCH | {"top_k": 0}).json(),
        ]
    assert _documented_replies() == live


def test_the_doc_names_the_version_the_code_speaks():
    assert f"`{CONTRACT_VERSION}`" in DOC.read_text().splitlines()[0]
    assert "(docs/http-contract.md)" in (DOC.parents[1] / "README.md").read_text()
