"""`locoscore dataset fetch beam-100k`: every file of the pinned manifest downloaded from a
local server in the repository's layout, sha256-checked, and moved into place only whole."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from locoscore.benchmarks.beam.data import load_beam
from locoscore.benchmarks.beam.fetch import manifest
from locoscore.cli import app

BEAM_100K = Path(__file__).resolve().parents[2] / "../shared/data/beam/100K"
pytestmark = pytest.mark.skipif(not BEAM_100K.exists(), reason="BEAM 100K not at ../shared")


def _serve(corrupt: str | None = None) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Repository(http.server.BaseHTTPRequestHandler):
        """The repository's layout (probing questions one folder down) over ../shared."""

        def do_GET(self) -> None:
            rel = self.path.split("/chats/100K/", 1)[-1]
            local = BEAM_100K / rel.replace(
                "probing_questions/probing_questions.json", "probing_questions.json"
            )
            if not local.is_file():
                self.send_error(404)
                return
            body = local.read_bytes()
            if rel == corrupt:
                body = body[:-1] + b" "
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Repository)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/x/chats/100K/"


@pytest.fixture
def repository() -> Iterator[str]:
    server, url = _serve()
    yield url
    server.shutdown()


def test_fetch_saves_the_whole_size_folder(repository: str, tmp_path: Path) -> None:
    dest = tmp_path / "cache" / "100K"
    result = CliRunner().invoke(
        app, ["dataset", "fetch", "beam-100k", "--url", repository, "--dest", str(dest)]
    )
    assert result.exit_code == 0, result.output
    files = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())
    assert files == sorted(path for path, _, _ in manifest()["sizes"]["100K"])
    fetched = load_beam(dest)
    assert (len(fetched.conversations), len(fetched.questions)) == (20, 400)
    assert fetched.message_count == load_beam(BEAM_100K).message_count


def test_a_wrong_file_leaves_the_destination_untouched(tmp_path: Path) -> None:
    server, url = _serve(corrupt="7/chat_trunecated.json")
    dest = tmp_path / "100K"
    dest.mkdir()
    (dest / "keep.txt").write_text("earlier copy")
    try:
        result = CliRunner().invoke(
            app, ["dataset", "fetch", "beam-100k", "--url", url, "--dest", str(dest)]
        )
    finally:
        server.shutdown()
    assert result.exit_code == 2
    assert "sha256" in result.output and "7/chat_trunecated.json" in result.output
    assert [p.name for p in dest.iterdir()] == ["keep.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["100K"]  # no staging folder left
