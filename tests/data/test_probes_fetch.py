"""`locoscore dataset fetch probes`: both pinned probe sets downloaded, verified, cached."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.benchmarks.locomo.data.probes import (
    PROBE_SOURCES,
    cached_probe_paths,
    cached_probes_dir,
)
from locoscore.cli import app


@pytest.fixture
def probe_server(locomo_path: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The real probe files laid out as in the audit repository, served on 127.0.0.1."""
    root = tmp_path / "served"
    for source in PROBE_SOURCES:
        target = root / source.remote_path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(locomo_path.parent / "judge-probes" / f"{source.name}.json", target)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        server.server_close()


def test_fetch_probes_verifies_and_stores_both_sets_in_the_user_cache(
    probe_server: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    url, root = probe_server
    result = CliRunner().invoke(app, ["dataset", "fetch", "probes", "--url", url])
    assert result.exit_code == 0, result.output
    assert cached_probes_dir() == tmp_path / "cache" / "locoscore" / "judge-probes"
    paths = cached_probe_paths()
    assert [p.name for p in paths] == ["specific-but-wrong.json", "vague-but-topical.json"]
    for path, source in zip(paths, PROBE_SOURCES, strict=True):
        assert path.read_bytes() == (root / source.remote_path).read_bytes()
        assert source.sha256 in result.output
    assert sorted(p.name for p in cached_probes_dir().iterdir()) == [p.name for p in paths]


def test_a_file_with_another_checksum_is_refused_and_nothing_is_saved(
    probe_server: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    url, root = probe_server
    tampered = root / PROBE_SOURCES[1].remote_path
    tampered.write_bytes(tampered.read_bytes() + b"\n")
    result = CliRunner().invoke(app, ["dataset", "fetch", "probes", "--url", url])
    assert result.exit_code == 2
    assert f"expected {PROBE_SOURCES[1].sha256}; not saved" in " ".join(result.output.split())
    assert not cached_probes_dir().exists()


def test_unknown_download_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["dataset", "fetch", "errata-typo"])
    assert (
        result.exit_code == 2
        and "expected one of dataset, errata, probes, got 'errata-typo'" in result.output
    )
