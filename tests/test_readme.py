"""The README's two commands are the ones users and CI run."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _bash_blocks() -> list[str]:
    text = (REPO / "README.md").read_text()
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def test_ci_runs_exactly_the_readme_test_command() -> None:
    test_command = _bash_blocks()[1]
    assert "pytest" in test_command
    ci_lines = (REPO / ".ci" / "run").read_text().splitlines()
    assert test_command in ci_lines


def test_readme_first_command_scores_the_bundled_example() -> None:
    first = _bash_blocks()[0]
    assert "locoscore score examples/" in first
    example = first.split("locoscore score ")[1].split()[0]
    assert (REPO / example).is_file()


# ---------------------------------------------------------------- every command, as written
#
# Each `bash` block runs in a fresh copy of examples/ beside the shared data (so
# `../shared/data/locomo10.json` resolves as on CI), with no API key in the environment.
# `locoscore` commands run in-process; the fake provider, the one background server a block
# starts, runs as the README says, on a free port that replaces the README's in the block.

INSTALL_STEPS = ("python3 -m venv .venv", ". .venv/bin/activate", "pip install")
NEEDS = {  # README commands that need what CI has not; each carries a `# needs` comment
    "locoscore run --system bm25 --out out/bm25": "calls OpenAI (OPENAI_API_KEY, network)",
    "locoscore judge out/bm25/predictions.jsonl": "calls Anthropic (ANTHROPIC_API_KEY, network)",
    "locoscore run --system embedding": "needs an Ollama server on localhost:11434",
    "locoscore run --system mem0": "calls OpenAI (OPENAI_API_KEY, network)",
    "locoscore probe http://127.0.0.1:8400": "needs a memory server on port 8400",
    "HF_HUB_OFFLINE=1 locoscore run --system embedding": "needs the local extra (torch), not in CI",
    "locoscore judge out/beam-bm25/predictions.jsonl": "calls Anthropic (ANTHROPIC_API_KEY)",
    "llama-server": "needs llama.cpp's server and a model file",
    "vllm serve": "needs vLLM and a model download",
    "ollama serve": "needs Ollama and a model download",
    "python bench/local_model_smoke.py": "needs a local OpenAI-compatible LLM server",
    "locoscore run --system bm25 --out out/local": "needs a local OpenAI-compatible LLM server",
    "locoscore judge out/local/predictions.jsonl": "needs a local OpenAI-compatible LLM server",
    # a marked shell loop: the whole block
    "for n in 128 256": "embeds through the api backend (OPENAI_API_KEY, network)",
}
KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL")


def _commands(block: str) -> list[tuple[str, str]]:
    """(command, its trailing comment) per logical line: continuations joined."""
    text = block.replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        command, _, comment = line.partition("  #")
        out.append((" ".join(command.split()), comment.strip()))
    return [(c, n) for c, n in out if c]


def _blocks() -> list[str]:
    return _bash_blocks()


def test_every_command_needing_a_key_or_a_server_is_marked_and_listed() -> None:
    marked = {
        command
        for block in _blocks()
        for command, comment in _commands(block)
        if comment.startswith("needs")
    }
    for command in marked:
        assert any(command.startswith(prefix) for prefix in NEEDS), command
    for prefix in NEEDS:
        assert any(command.startswith(prefix) for command in marked), prefix


def test_install_lines_match_ci() -> None:
    ci = next(line for line in (REPO / ".ci" / "run").read_text().splitlines() if "pytest" in line)
    extras = re.findall(r"\[([\w,]+)\]", ci)[0].split(",")
    for block in _blocks():
        for command, _ in _commands(block):
            for step in (s.strip() for s in command.split("&&")):
                if not step.startswith(INSTALL_STEPS):
                    continue
                if step.startswith("pip install"):
                    target = step.split()[-1].strip("'")
                    assert target == "." or target.startswith((".[", "locoscore[")), step
                    wanted = re.findall(r"\[([\w,]+)\]", target)
                    for extra in wanted[0].split(",") if wanted else []:
                        assert extra in extras or extra == "local", step  # local: no torch in CI
                else:
                    assert step in ci, step


def _run_block(block: str, work: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """Run the block's commands; the number of locoscore commands that ran."""
    from typer.testing import CliRunner

    from locoscore.cli import app

    cwd, ran = work, 0
    servers: list[subprocess.Popen[str]] = []
    urls: dict[str, str] = {}
    try:
        commands = _commands(block)
        if commands[0][0].startswith("for ") and commands[0][1].startswith("needs"):
            return 0  # a loop that needs what CI has not: the whole block
        for command, comment in commands:
            if comment.startswith("needs"):
                continue
            for step in (s.strip() for s in command.split("&&")):
                if step.startswith(INSTALL_STEPS):
                    continue
                for readme_url, real_url in urls.items():
                    step = step.replace(readme_url, real_url)
                words = shlex.split(step)
                if words[0] == "cd":
                    cwd = (cwd / words[1]).resolve()
                    continue
                if words[-1] == "&":
                    assert words[:3] == ["python", "-m", "locoscore.testing.fake_provider"], step
                    port = words[words.index("--port") + 1]
                    args = [a if a != port else "0" for a in words[3:-1]]
                    server = subprocess.Popen(
                        [sys.executable, "-m", "locoscore.testing.fake_provider", *args],
                        stdout=subprocess.PIPE,
                        text=True,
                    )
                    servers.append(server)
                    assert server.stdout is not None
                    listening = server.stdout.readline().split()
                    assert listening[0] == "listening", listening
                    urls[f"http://127.0.0.1:{port}"] = listening[1]
                    continue
                env = {}
                while "=" in words[0] and not words[0].startswith("-"):
                    name, _, value = words.pop(0).partition("=")
                    env[name] = value
                assert words[0] == "locoscore", step
                monkeypatch.chdir(cwd)
                result = CliRunner().invoke(app, words[1:], env=env)
                assert result.exit_code == 0, (step, result.output)
                ran += 1
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=10)
    return ran


def _block_id(block: str) -> str:
    return next(c for c, _ in _commands(block) if c)[:60]


RUNNABLE = [b for b in _bash_blocks() if "pytest" not in b]


@pytest.mark.parametrize("block", RUNNABLE, ids=[_block_id(b) for b in RUNNABLE])
def test_readme_block_runs_as_written(
    block: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = REPO.parent / "shared"
    if not (shared / "data" / "locomo10.json").is_file():
        pytest.skip(f"the shared data is not at {shared}")
    work = tmp_path / "clone"
    shutil.copytree(REPO / "examples", work / "examples", ignore=shutil.ignore_patterns("out"))
    (tmp_path / "shared").symlink_to(shared)
    for name in (*KEYS, "LOCOSCORE_DATASET"):
        monkeypatch.delenv(name, raising=False)
    ran = _run_block(block, work, monkeypatch)
    if not ran:
        marked = [c for c, note in _commands(block) if note.startswith("needs")]
        reasons = {NEEDS[p] for c in marked for p in NEEDS if c.startswith(p)}
        pytest.skip("; ".join(sorted(reasons)))
