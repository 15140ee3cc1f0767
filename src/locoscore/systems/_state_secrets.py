"""The API key never stays in a system's state folder.

A memory library's native store can write memory it never initialised: ChromaDB's HNSW files
(A-Mem's store) are written at their full capacity, and the unused slots hold whatever the
process's heap held before, which can be a copy of the key the library's clients were given.
The folder is part of the run (`DIR/system_state/`) and is shared with its results, so every
copy of the key is overwritten in place, byte for byte, after each session is stored, when a
finished conversation is resumed and when the system closes. In place and of equal length:
offsets inside a store's files do not move, and a file a library holds open stays the file.
"""

from __future__ import annotations

import asyncio
import mmap
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# Shorter values ("EMPTY", "none" for a local server) are placeholders, not secrets, and
# overwriting them could change a store's own text.
SHORTEST_SECRET = 16
MASK = b"*"


async def scrub_key(folder: Path, options: Mapping[str, Any]) -> None:
    """`scrub_secret` of the key a system's options name (`api_key_env`), off the loop; no
    key set, nothing to scrub."""
    key = os.environ.get(options["api_key_env"], "")
    await asyncio.to_thread(scrub_secret, folder, key)


def scrub_secret(folder: Path, secret: str) -> list[Path]:
    """Overwrite every copy of `secret` (its UTF-8 bytes) in the files under `folder`; the
    files that held one."""
    if len(secret) < SHORTEST_SECRET or not folder.is_dir():
        return []
    needle = secret.encode("utf-8")
    return [path for path in sorted(folder.rglob("*")) if _scrub_file(path, needle)]


def _scrub_file(path: Path, needle: bytes) -> bool:
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size < len(needle):
            return False
        with path.open("r+b") as handle, mmap.mmap(handle.fileno(), 0) as mapped:
            at = mapped.find(needle)
            found = at != -1
            while at != -1:
                mapped[at : at + len(needle)] = MASK * len(needle)
                at = mapped.find(needle, at + len(needle))
            if found:
                mapped.flush()
    except (FileNotFoundError, ValueError):  # removed or emptied by its library meanwhile
        return False
    return found
