"""`locoscore dataset fetch personamem`: no pinned public URL is known for the derived copy
(the peer harness's repository was not reachable to pin one), so the command takes `--url`
(a folder URL holding queries.json.gz and documents.json.gz) and checks each file against
its pinned sha256; without `--url` it says so, as bad input. The files land in a temporary
folder that replaces the destination only once both match."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from locoscore._io import write_bytes_atomic
from locoscore.benchmarks.personamem.data import PINNED
from locoscore.errors import DatasetError


def default_destination() -> Path:
    from locoscore.data.user_cache import user_cache_file

    return user_cache_file("personamem") / "32k"


def fetch_personamem(url: str | None, dest: Path | None) -> Path:
    from locoscore.data.user_cache import download_bytes_verified

    if not url:
        raise DatasetError(
            "no pinned download is known for PersonaMem's derived 32k copy: pass --url "
            "(a folder URL holding queries.json.gz and documents.json.gz, each checked "
            "against its pinned sha256) or use --dataset DIR with a copy you have",
            field="--url",
        )
    root = url.rstrip("/") + "/"
    target = dest or default_destination()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        for name, sha in sorted(PINNED.items()):
            body = download_bytes_verified(
                root + name, sha, manual_option="--dataset DIR", error=DatasetError
            )
            write_bytes_atomic(staging / name, body)
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
