"""A CLI you can copy from: `--version`, signatures whole on their own line at any width and
when piped, no `<bool>` metavars, every file a command writes named in its `--help`, one
`--dataset` option, and `--help`/`--version` that import nothing heavy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from locoscore import __version__
from locoscore.cli import app

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "nltk", "anthropic", "openai", "bm25s", "tiktoken", "mem0", "httpx")


def _commands() -> dict[str, Any]:
    """Every command by its full name ('judge', 'dataset fetch', ...), as built by typer."""
    root: Any = typer.main.get_command(app)
    found: dict[str, Any] = {}
    for name, command in root.commands.items():
        if hasattr(command, "commands"):  # a group
            for sub, sub_command in command.commands.items():
                found[f"{name} {sub}"] = sub_command
        else:
            found[name] = command
    return found


def _help(*args: str, columns: int = 200) -> str:
    result = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result.output


def test_version_prints_the_package_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"locoscore {__version__}\n"


@pytest.mark.parametrize("args", [["--help"], ["--version"]])
def test_help_and_version_import_nothing_heavy(args: list[str]) -> None:
    """Measured in a fresh interpreter, as the `locoscore` script starts."""
    code = (
        "import sys\n"
        f"sys.argv = ['locoscore', *{args!r}]\n"
        "from locoscore.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"loaded = sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))\n"
        "print('HEAVY', ','.join(loaded))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip().splitlines()[-1] == "HEAVY", done.stdout


def test_no_help_shows_a_bool_metavar() -> None:
    for name in ["", *_commands()]:
        text = _help(*name.split())
        assert "<bool>" not in text and "BOOLEAN" not in text, name


# what each command writes, as its --help must say (a dry run or a read-only command: nothing)
WRITES = {
    "score": ["scores.jsonl", "summary.json", "report.md", "report.html", "scores.csv"],
    "judge": ["judgments.jsonl", "judge_cache.sqlite", "scores.jsonl", "summary.json",
              "report.md", "report.html", "scores.csv"],
    "run": ["predictions.jsonl", "run.json", "run_state.sqlite", "system_state/",
            "scores.jsonl", "summary.json", "report.md", "report.html", "scores.csv"],
    "audit": ["audit.json", "audit.md", "audit.html", "judge_cache.sqlite", "report.md",
              "report.html", "scores.csv", "summary.json"],
    "report": ["report.md", "report.html", "scores.csv", "summary.json", ".svg"],
    "reprice": ["run.json", "summary.json", "report.md", "report.html", "scores.csv"],
    "compare": ["compare.md", "compare.html", "differences.csv"],
    "merge": ["predictions.jsonl", "run.json", "run_state.sqlite", "judge_cache.sqlite",
              "scores.jsonl", "summary.json", "report.md", "report.html", "scores.csv"],
    "board": ["board.html", "board.md", "board.json"],
    "reproduce mem0-table": ["reproduce.md", "reproduce.json"],
    "probe": ["--json FILE"],
    "serve": ["--state-dir"],
    "systems install": ["envs/NAME-HASH", "nothing in the current folder"],
    "dataset info": ["Writes nothing"],
    "verify": ["Writes nothing"],
    "dataset fetch": ["locomo10.json", "locomo-audit-errors.json", "specific-but-wrong.json",
                      "vague-but-topical.json"],
}  # fmt: skip


def test_every_command_help_names_every_file_it_writes() -> None:
    assert set(WRITES) == set(_commands())
    for name, files in WRITES.items():
        text = " ".join(_help(*name.split()).split())  # rewrapped: no file name cut in two
        for file in files:
            assert file in text, (name, file)


def test_dataset_option_is_one_definition_everywhere() -> None:
    helps = {
        name: param.help
        for name, command in _commands().items()
        for param in command.params
        if param.name == "dataset"
    }
    assert {"score", "judge", "run", "audit", "report", "compare", "dataset info"} <= set(helps)
    assert len(set(helps.values())) == 1, helps


def test_signatures_are_whole_lines_at_40_columns_and_piped(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = {**os.environ, "COLUMNS": "40"}
    env.pop("LOCOSCORE_DATASET", None)
    done = subprocess.run(
        [sys.executable, "-m", "locoscore", "score", "examples/predictions.jsonl", "--out",
         str(out)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    lexical = json.loads((out / "summary.json").read_text())["lexical"]
    signatures = [section["signature"] for section in lexical.values()]
    assert len(signatures) == 3 and all(len(s) > 40 for s in signatures)
    lines = done.stdout.splitlines()
    for signature in signatures:
        assert signature in lines, (signature, done.stdout)
    assert "…" not in done.stdout
