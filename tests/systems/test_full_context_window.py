"""`full-context` with `window_tokens=N`: BEAM's long-context baseline keeps the most recent
turns that fit; token counts computed here with the same cl100k tokenizer."""

from __future__ import annotations

import asyncio

import pytest

from locoscore.data.conversation import Query, SessionInput, TurnInput
from locoscore.errors import InputError
from locoscore.systems.context import SystemContext
from locoscore.systems.full_context import FullContextSystem, most_recent
from locoscore.tokens import count_tokens


def _session(index: int, texts: list[str]) -> SessionInput:
    turns = tuple(TurnInput("user", f"{index}:{i}", t) for i, t in enumerate(texts))
    return SessionInput("c", index, f"day {index}", None, turns)


SESSIONS = [_session(1, ["alpha beta", "gamma"]), _session(2, ["delta epsilon zeta", "eta"])]


def _cost(session: SessionInput, turns: list[TurnInput], first: bool) -> int:
    header = count_tokens(session.render().split("\n", 1)[0] + "\n")
    return sum(count_tokens(t.render() + "\n") for t in turns) + (header if first else 0)


def test_a_window_that_holds_everything_changes_nothing() -> None:
    assert most_recent(SESSIONS, 10_000) == SESSIONS


def test_the_oldest_turns_go_first() -> None:
    last = SESSIONS[1]
    whole_last = _cost(last, list(last.turns), True)
    newest_of_first = _cost(SESSIONS[0], [SESSIONS[0].turns[1]], True)
    kept = most_recent(SESSIONS, whole_last + newest_of_first)
    assert [[t.dia_id for t in s.turns] for s in kept] == [["1:1"], ["2:0", "2:1"]]
    kept = most_recent(SESSIONS, whole_last + newest_of_first - 1)
    assert [[t.dia_id for t in s.turns] for s in kept] == [["2:0", "2:1"]]
    only_newest = _cost(last, [last.turns[1]], True)
    assert [[t.dia_id for t in s.turns] for s in most_recent(SESSIONS, only_newest)] == [["2:1"]]
    assert most_recent(SESSIONS, only_newest - 1) == []


def test_the_system_applies_the_window_and_rejects_a_bad_one(tmp_path) -> None:
    context = SystemContext(state_dir=tmp_path)
    system = FullContextSystem({"window_tokens": "12"}, context)

    async def go() -> list[str]:
        await system.reset("c")
        for session in SESSIONS:
            await system.add(session)
        result = await system.search(Query("c", "q", "anything?", 10))
        return [d for item in result.items for d in item.dia_ids]

    ids = asyncio.run(go())
    assert ids and ids[-1] == "2:1" and "1:0" not in ids
    with pytest.raises(InputError, match="expected a positive value"):
        FullContextSystem({"window_tokens": "0"}, context)
