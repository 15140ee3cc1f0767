"""The code blocks of the README and of every docs/ page, and how the tests run them.

A page's blocks run in order in one session, as a reader types them (a `cd` or a background
server of one block holds for the next), in a fresh clone-like folder with no API key in the
environment and a user cache holding what `locoscore dataset fetch` fetches:
- `locoscore` commands run in-process (fast: no interpreter start per command);
- a background server (`python -m locoscore.testing.fake_provider ... &` or
  `locoscore serve ... &`, each printing `listening URL` first) runs on a free port that
  replaces the page's port in the rest of the block;
- `cd DIR` moves; install steps (venv, `pip install`) are skipped: the tests run in the
  installed environment;
- any other step runs through bash, with this interpreter's bin folder first on PATH.
A command whose trailing comment starts with `needs` is skipped (it needs a key, the network,
a server or much time), and so is a whole block whose first line is `# needs …`. A `python`
block runs as a script in the same kind of folder.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL")
INSTALL_STEPS = ("python3 -m venv .venv", ". .venv/bin/activate", "pip install")
_FENCE = re.compile(r"^([ \t]*)```(bash|python)[^\n]*\n(.*?)^\1```", re.S | re.M)
_SHELL = set("|;<>$`(){}*?!")


@dataclass(frozen=True)
class Block:
    page: str  # README.md or docs/...
    line: int
    language: str
    code: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[Path]:
    docs = sorted(p for p in (REPO / "docs").rglob("*.md") if "hooks" not in p.parts)
    return [REPO / "README.md", *docs]


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    out = []
    for m in _FENCE.finditer(text):
        indent = m.group(1)
        code = "\n".join(line.removeprefix(indent) for line in m.group(3).splitlines())
        line = text.count("\n", 0, m.start()) + 1
        name = str(page.relative_to(REPO)) if page.is_relative_to(REPO) else page.name
        out.append(Block(name, line, m.group(2), code.strip() + "\n"))
    return out


def all_blocks() -> list[Block]:
    return [b for page in pages() for b in blocks(page)]


def commands(code: str) -> list[tuple[str, str]]:
    """(command, its trailing comment) per logical line: continuations joined."""
    text = code.replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        command, _, comment = line.partition("  #")
        out.append((" ".join(command.split()), comment.strip()))
    return [(c, n) for c, n in out if c]


def skipped_whole(block: Block) -> str | None:
    """Why the whole block is skipped, or None."""
    first = block.code.splitlines()[0].strip()
    if first.startswith("# needs"):
        return first.removeprefix("#").strip()
    cmds = commands(block.code) if block.language == "bash" else []
    if cmds and cmds[0][0].startswith("for ") and cmds[0][1].startswith("needs"):
        return cmds[0][1]  # a marked shell loop: the whole block
    return None


# What `locoscore dataset fetch` puts in the user cache, as a reader who ran it has it: the
# pages never point into this repository's test data.
FETCHED = {
    "locomo10.json": "locomo10.json",
    "beam/100K": "beam/100K",
    "personamem/32k": "personamem/32k",
    "locomo_plus.json": "locomo-plus/locomo_plus.json",
}


def prepare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh clone-like folder (examples/ in it), no key in the environment, and a user
    cache holding what `locoscore dataset fetch` fetches (links to the shared data)."""
    if not (SHARED / "data" / "locomo10.json").is_file():
        pytest.skip(f"the shared data is not at {SHARED}")
    work = tmp_path / "clone"
    shutil.copytree(REPO / "examples", work / "examples", ignore=shutil.ignore_patterns("out"))
    cache = tmp_path / "cache"
    for name, shared in FETCHED.items():
        if (SHARED / "data" / shared).exists():
            (cache / "locoscore" / name).parent.mkdir(parents=True, exist_ok=True)
            (cache / "locoscore" / name).symlink_to(SHARED / "data" / shared)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    for name in (*KEYS, "LOCOSCORE_DATASET"):
        monkeypatch.delenv(name, raising=False)
    return work


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return {**env, **extra}


def run_python(block: Block, work: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", block.code],
        cwd=work,
        env=_env({}),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, (block.id, done.stdout, done.stderr)


class Session:
    """One shell session over a page: its blocks run in order as a reader types them, so a
    `cd` and a background server of one block hold for the next."""

    def __init__(self, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.cwd = work
        self.monkeypatch = monkeypatch
        self.servers: list[subprocess.Popen[str]] = []
        self.urls: dict[str, str] = {}

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *_: object) -> None:
        for server in self.servers:
            server.terminate()
            server.wait(timeout=10)

    def python(self, block: Block) -> None:
        run_python(block, self.cwd)

    def bash(self, block: Block) -> int:
        """Run the block's commands; the number of commands that ran."""
        ran = 0
        for command, comment in commands(block.code):
            if comment.startswith("needs"):
                continue
            for step in (s.strip() for s in command.split("&&")):
                if not step.startswith(INSTALL_STEPS):
                    self._step(block, step)
                    ran += 1
        return ran

    def _step(self, block: Block, step: str) -> None:
        from typer.testing import CliRunner

        from locoscore.cli import app

        for page_url, real_url in self.urls.items():
            step = step.replace(page_url, real_url)
        words = shlex.split(step)
        if words[0] == "cd":
            self.cwd = (self.cwd / words[1]).resolve()
            return
        if words[-1] == "&":
            self._serve(words)
            return
        env = {}
        while "=" in words[0] and not words[0].startswith("-"):
            name, _, value = words.pop(0).partition("=")
            env[name] = value
        if words[0] == "locoscore" and not _SHELL & set(step.split("#")[0]):
            self.monkeypatch.chdir(self.cwd)
            result = CliRunner().invoke(app, words[1:], env=env)
            assert result.exit_code == 0, (block.id, str(self.cwd), step, result.output)
        else:
            done = subprocess.run(
                ["bash", "-c", step],
                cwd=self.cwd,
                env=_env({}),
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, (block.id, step, done.stdout, done.stderr)

    def _serve(self, words: list[str]) -> None:
        if words[:2] == ["locoscore", "serve"]:
            module, rest = ["locoscore", "serve"], words[2:-1]
        else:
            assert words[:3] == ["python", "-m", "locoscore.testing.fake_provider"]
            module, rest = ["locoscore.testing.fake_provider"], words[3:-1]
        port = rest[rest.index("--port") + 1]
        page_url = f"http://127.0.0.1:{port}"
        if page_url in self.urls:
            return  # the reader's server from an earlier block still listens
        args = [a if a != port else "0" for a in rest]
        server = subprocess.Popen(
            [sys.executable, "-m", *module, *args], stdout=subprocess.PIPE, text=True
        )
        self.servers.append(server)
        assert server.stdout is not None
        listening = server.stdout.readline().split()
        assert listening[0] == "listening", listening
        self.urls[page_url] = listening[1]
