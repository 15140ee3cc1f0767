"""A pinned virtual environment for a system whose pins clash with locoscore's extras.

TO BE UNIFIED with the `mem0g` branch's module of the same name (written in parallel; it was
not committed when this one was needed). Only the signature the Letta adapter relies on is
here: `ensure_environment(name, requirements) -> Path` (the environment's Python).
Unlike the mem0g version, it installs only the requirements given, not locoscore's own
runtime dependencies: Letta runs no locoscore code in its environment, and pip finds no
resolution of letta[server,sqlite]==0.11.7 with locoscore's core pins ("Cannot install
letta ... and nltk==3.9.1", ResolutionImpossible). The unified module needs that choice.

The environment is made once under the user cache (`~/.cache/locoscore/envs/NAME-HASH`),
the hash covering the requirements and the Python version, so a new pin gets a new
environment. It is built in a scratch folder renamed into place when pip succeeded: a
half-built environment is never used.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from locoscore.data.user_cache import user_cache_file
from locoscore.errors import InputError

MARKER = "locoscore-environment.json"


def environment_dir(name: str, requirements: list[str]) -> Path:
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    text = json.dumps({"python": python, "requirements": sorted(set(requirements))})
    key = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    return user_cache_file("envs") / f"{name}-{key}"


def _python_in(folder: Path) -> Path:
    return folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def built_python(name: str, requirements: list[str]) -> Path | None:
    """The environment's Python when it is built, else None (nothing is built here)."""
    folder = environment_dir(name, requirements)
    python = _python_in(folder)
    return python if (folder / MARKER).is_file() and python.exists() else None


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR")]
    return (errors or lines or ["no output"])[-1][:300]


def ensure_environment(name: str, requirements: list[str]) -> Path:
    """The environment's Python, building the environment first if it is not there (a
    failed build is an InputError; nothing is left behind)."""
    python = built_python(name, requirements)
    if python is not None:
        return python
    folder = environment_dir(name, requirements)
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = folder.with_name(f"{folder.name}.partial-{os.getpid()}")
    shutil.rmtree(scratch, ignore_errors=True)
    try:
        steps = [
            [sys.executable, "-m", "venv", str(scratch)],
            # The pip a venv bundles may fail to resolve (Letta's requirements stop Python
            # 3.11's with "Candidate is not for this requirement lxml[html-clean,...]").
            [str(_python_in(scratch)), "-m", "pip", "install", "-q",
             "--disable-pip-version-check", "--upgrade", "pip"],
            [str(_python_in(scratch)), "-m", "pip", "install", "-q",
             "--disable-pip-version-check", *requirements],
        ]  # fmt: skip
        for step in steps:
            done = subprocess.run(
                step, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False
            )
            if done.returncode != 0:
                raise InputError(
                    f"building the {name} environment ({folder}) failed (exit "
                    f"{done.returncode}: {_last_line(done.stdout)}); it needs PyPI"
                )
        marker = {"name": name, "requirements": requirements}
        (scratch / MARKER).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
        try:
            scratch.rename(folder)
        except OSError:  # built meanwhile by another process: use that one
            if built_python(name, requirements) is None:
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return _python_in(folder)
