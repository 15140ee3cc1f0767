"""`locoscore dataset fetch longmemeval-*`: streamed from a local HTTP server, checked against
its sha256, renamed into place only when it matches."""

from __future__ import annotations

import hashlib
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.cli import app
from locoscore.data.user_cache import download_verified
from locoscore.errors import InputError
from locoscore.testing.longmemeval_fixture import write_fixture


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "srv"
    root.mkdir()
    write_fixture(root / "longmemeval_s_cleaned.json")
    handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=str(root))  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()


def test_a_matching_file_is_saved_whole(served: tuple[str, Path], tmp_path: Path) -> None:
    base, root = served
    body = (root / "longmemeval_s_cleaned.json").read_bytes()
    digest = hashlib.sha256(body).hexdigest()
    dest = tmp_path / "cache" / "s.json"
    url = f"{base}/longmemeval_s_cleaned.json"
    download_verified(url, digest, dest, manual_option="--dataset", chunk_size=97)
    assert dest.read_bytes() == body
    assert [p.name for p in dest.parent.iterdir()] == ["s.json"]  # no temporary file left


def test_the_cli_refuses_a_file_that_is_not_the_release(
    served: tuple[str, Path], tmp_path: Path
) -> None:
    base, _ = served
    dest = tmp_path / "cache" / "s.json"
    url = f"{base}/longmemeval_s_cleaned.json"
    result = CliRunner().invoke(
        app, ["dataset", "fetch", "longmemeval-s", "--url", url, "--dest", str(dest)]
    )
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "expected d6f21ea9d60a0d56f34a05b609c79c88a451d2ae03597821ea3d5a9678c3a442" in text
    assert "not saved" in text
    assert not dest.parent.exists()  # nothing saved, not even the folder made for it


def test_offline_is_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="are you offline"):
        download_verified(
            "http://127.0.0.1:9/x.json", "0" * 64, tmp_path / "x.json", manual_option="--dataset"
        )
    assert list(tmp_path.iterdir()) == []
