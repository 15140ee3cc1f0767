"""No copy of the API key stays in a system's state folder: every copy is overwritten in place,
byte for byte, so a store's offsets do not move (what A-Mem's ChromaDB files need: their unused
slots hold whatever the heap held, a copy of the key included)."""

from __future__ import annotations

from pathlib import Path

from locoscore.systems._state_secrets import SHORTEST_SECRET, scrub_secret

KEY = "sk-state-test-DO-NOT-KEEP-4b2a"


def test_every_copy_of_the_key_is_masked_in_place_and_nothing_else_changes(
    tmp_path: Path,
) -> None:
    nested = tmp_path / "conversations" / "conv-26" / "chroma" / "segment"
    nested.mkdir(parents=True)
    index = nested / "data_level0.bin"
    before = b"\x00\x01vec" + KEY.encode() + b"\xff" * 7 + b"Bearer " + KEY.encode() + b"\x00"
    index.write_bytes(before)
    clean = tmp_path / "conversations" / "conv-26" / "notes.json"
    clean.write_text('{"n1": {"dia_id": "D1:1"}}', encoding="utf-8")

    assert scrub_secret(tmp_path, KEY) == [index]
    after = index.read_bytes()
    mask = b"*" * len(KEY)
    assert after == b"\x00\x01vec" + mask + b"\xff" * 7 + b"Bearer " + mask + b"\x00"
    assert len(after) == len(before)
    assert clean.read_text(encoding="utf-8") == '{"n1": {"dia_id": "D1:1"}}'
    assert scrub_secret(tmp_path, KEY) == []  # nothing left to find


def test_a_placeholder_key_is_not_a_secret_and_a_missing_folder_is_nothing(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("the box was EMPTY", encoding="utf-8")
    assert len("EMPTY") < SHORTEST_SECRET
    assert scrub_secret(tmp_path, "EMPTY") == []
    assert notes.read_text(encoding="utf-8") == "the box was EMPTY"
    assert scrub_secret(tmp_path / "absent", KEY) == []
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    assert scrub_secret(tmp_path, KEY) == []
