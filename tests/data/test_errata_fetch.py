"""`locoscore dataset fetch errata`: download, verify the pinned sha256, write atomically into
the user cache beside the dataset; offline or a wrong file: one line, exit 2, nothing saved."""

from __future__ import annotations

import functools
import http.server
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.benchmarks.locomo.data.dataset import cached_dataset_path
from locoscore.benchmarks.locomo.data.errata import (
    ERRATA_SHA256,
    cached_errata_path,
    resolve_errata_path,
)
from locoscore.cli import app

runner = CliRunner()


def _serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "locoscore"


@pytest.fixture
def served_errata(errata_path: Path) -> Iterator[str]:
    server, base = _serve(errata_path.parent)
    try:
        yield f"{base}/{errata_path.name}"
    finally:
        server.shutdown()
        server.server_close()


def test_fetch_errata_saves_the_verified_list_beside_the_dataset(
    served_errata: str, errata_path: Path, user_cache: Path
) -> None:
    result = runner.invoke(app, ["dataset", "fetch", "errata", "--url", served_errata])
    assert result.exit_code == 0, result.output
    target = cached_errata_path()
    assert target.parent == cached_dataset_path().parent == user_cache
    assert target.read_bytes() == errata_path.read_bytes()
    assert ERRATA_SHA256 in result.output
    assert [p.name for p in user_cache.iterdir()] == [target.name]  # no temporary file left
    assert resolve_errata_path(None) == target  # and it is the list found by default


def test_fetch_errata_refuses_a_file_with_another_checksum(
    tmp_path: Path, user_cache: Path
) -> None:
    (tmp_path / "srv").mkdir()
    (tmp_path / "srv" / "errors.json").write_text("[]", encoding="utf-8")
    server, base = _serve(tmp_path / "srv")
    try:
        result = runner.invoke(app, ["dataset", "fetch", "errata", "--url", f"{base}/errors.json"])
    finally:
        server.shutdown()
        server.server_close()
    assert result.exit_code == 2
    assert f"expected {ERRATA_SHA256}; not saved" in result.output
    assert not user_cache.exists()


def test_fetch_errata_offline_is_one_line_and_exit_2(user_cache: Path) -> None:
    with socket.socket() as sock:  # a closed local port: connection refused, no network used
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = runner.invoke(
        app, ["dataset", "fetch", "errata", "--url", f"http://127.0.0.1:{port}/errors.json"]
    )
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "are you offline?" in lines[0] and "--errata PATH" in lines[0]
    assert not user_cache.exists()


def test_fetch_of_an_unknown_item_is_refused() -> None:
    result = runner.invoke(app, ["dataset", "fetch", "probes-v9"])
    assert result.exit_code == 2
    assert "expected one of dataset, errata, probes, got 'probes-v9'" in result.output
