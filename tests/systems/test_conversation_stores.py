"""`ConversationStores`: one store per conversation, opened once even when callers race,
and none opened for a search of a conversation never stored."""

from __future__ import annotations

import threading
from pathlib import Path

from locoscore.systems._conversation_stores import ConversationStores


def test_racing_callers_share_the_one_store_opened(tmp_path: Path) -> None:
    stores = ConversationStores[str](lambda cid: tmp_path / cid)
    opened: list[Path] = []
    start = threading.Barrier(8)
    found: list[str | None] = []

    def opener(folder: Path) -> str:
        opened.append(folder)
        return f"store of {folder.name}"

    def call() -> None:
        start.wait()
        found.append(stores.open("c1", True, opener))

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert opened == [tmp_path / "c1"]
    assert found == ["store of c1"] * 8
    assert stores.get("c1") == "store of c1"


def test_a_search_of_a_conversation_never_stored_opens_nothing(tmp_path: Path) -> None:
    stores = ConversationStores[str](lambda cid: tmp_path / cid)
    assert stores.open("c2", False, lambda folder: "never") is None
    (tmp_path / "c3").mkdir()  # stored by an earlier process: opened from its folder
    assert stores.open("c3", False, lambda folder: folder.name) == "c3"


def test_a_popped_store_is_opened_again_and_drain_empties(tmp_path: Path) -> None:
    stores = ConversationStores[int](lambda cid: tmp_path / cid)
    assert stores.open("a", True, lambda folder: 1) == 1
    assert stores.pop("a") == 1
    assert stores.pop("a") is None
    assert stores.open("a", True, lambda folder: 2) == 2
    assert stores.open("b", True, lambda folder: 3) == 3
    assert sorted(stores.drain()) == [2, 3]
    assert stores.get("a") is None
