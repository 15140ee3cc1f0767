"""`locoscore dataset fetch`: download, verify, write into the user cache, then load from it."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.benchmarks.locomo.data import LOCOMO_SHA256, load_dataset
from locoscore.benchmarks.locomo.data.dataset import cached_dataset_path
from locoscore.cli import app


@pytest.fixture
def served_dataset(locomo_path: Path) -> Iterator[str]:
    """The real locomo10.json served from a local HTTP server (no network)."""
    handler = functools.partial(
        http.server.SimpleHTTPRequestHandler, directory=str(locomo_path.parent)
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/{locomo_path.name}"
    finally:
        server.shutdown()
        server.server_close()


def test_fetch_writes_the_verified_file_into_the_user_cache(
    served_dataset: str, locomo_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("LOCOSCORE_DATASET", raising=False)
    target = cached_dataset_path()
    assert target == tmp_path / "cache" / "locoscore" / "locomo10.json"

    result = CliRunner().invoke(app, ["dataset", "fetch", "--url", served_dataset])

    assert result.exit_code == 0, result.output
    assert target.read_bytes() == locomo_path.read_bytes()
    assert LOCOMO_SHA256 in result.output
    # no temporary file is left beside it
    assert [p.name for p in target.parent.iterdir()] == ["locomo10.json"]
    # with no path and no $LOCOSCORE_DATASET, the fetched copy is the one loaded
    dataset = load_dataset()
    assert dataset.path == target and dataset.checksum_ok
    assert sum(dataset.category_counts().values()) == 1986


def test_fetch_locomo_is_the_dataset_by_its_other_name(
    served_dataset: str, locomo_path: Path, tmp_path: Path
) -> None:
    """`locomo` is a name of the dataset the benchmark declares (`fetch_names`), kept from
    before the names came from the registry; it is taken but not listed twice."""
    dest = tmp_path / "copy.json"
    args = ["dataset", "fetch", "locomo", "--url", served_dataset, "--dest", str(dest)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert dest.read_bytes() == locomo_path.read_bytes()
    # the terminal may wrap the long temporary path anywhere: compared without whitespace
    assert f"saved{dest}(sha256{LOCOMO_SHA256})" in "".join(result.output.split())
    usage = CliRunner().invoke(app, ["dataset", "fetch", "--help"], env={"COLUMNS": "400"})
    assert "[dataset|errata|probes|" in usage.output and "|locomo|" not in usage.output
