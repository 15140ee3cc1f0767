"""`locoscore dataset fetch beam-100k | beam-500k`: the repository's files at a pinned commit.

Each size is a manifest of (path, size, sha256) read off the repository (`manifest.json`:
hashes only, no data). Every file is downloaded and checked into a temporary folder beside
the destination, which replaces the destination only once all of them match, so the cache
never holds a partial or wrong size folder.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from locoscore._io import sha256_text, write_bytes_atomic
from locoscore.benchmarks.base import KnownFile
from locoscore.errors import DatasetError

_MANIFEST = Path(__file__).with_name("manifest.json")


@lru_cache(maxsize=1)
def manifest() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(_MANIFEST.read_text(encoding="utf-8"))
    return loaded


def manifest_sha256(size: str) -> str:
    """One hash naming a size's whole file set (over its sorted path/sha256 lines)."""
    lines = sorted(f"{path} {sha}" for path, _, sha in manifest()["sizes"][size])
    return sha256_text("\n".join(lines))


def base_url(size: str) -> str:
    m = manifest()
    return f"https://raw.githubusercontent.com/{m['repository']}/{m['revision']}/chats/{size}/"


FETCH_NAMES = {
    f"beam-{size.lower()}": KnownFile(
        f"beam-{size.lower()}", size, manifest_sha256(size), url=base_url(size)
    )
    for size in ("100K", "500K")
}


def default_destination(size: str) -> Path:
    from locoscore.data.user_cache import user_cache_file

    return user_cache_file("beam") / size


def fetch_beam(name: str, url: str | None = None, dest: Path | None = None) -> Path:
    """Download one size folder (every file sha256-checked) and move it into place."""
    from locoscore.data.user_cache import download_bytes_verified

    known = FETCH_NAMES[name]
    size = known.filename
    root = (url or known.url or "").rstrip("/") + "/"
    target = dest or default_destination(size)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        for path, _, sha in manifest()["sizes"][size]:
            body = download_bytes_verified(
                root + path, sha, manual_option="--dataset DIR", error=DatasetError
            )
            write_bytes_atomic(staging / path, body)
        if target.exists():
            old = target.with_name(f".{target.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            target.rename(old)
            staging.rename(target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
