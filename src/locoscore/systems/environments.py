"""A pinned virtual environment for a system whose pins clash with locoscore's.

Some memory libraries cannot share an environment with locoscore's extras (Mem0's graph
memory exists only in mem0ai 1.0, locoscore's `mem0` extra pins 2.2; Letta's server pins old
libraries). Such a system runs in a virtual environment of its own, made once under the user
cache (`~/.cache/locoscore/envs/NAME-HASH`, or under `$XDG_CACHE_HOME`), and is driven over
locoscore's HTTP system contract (`locoscore serve` inside it).

The environment holds the system's pinned requirements and locoscore's own core runtime
dependencies, never locoscore itself: the running locoscore package is made importable there
through a folder holding only a link to it (`python_path`), so the server always runs the
same locoscore as the run that started it, and none of the main environment's packages leak
in. The hash in the folder name covers the requirements and the Python version: a new pin
gets a new environment. A build goes into a scratch folder renamed into place when pip
succeeded, so a half-built environment is never used.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import locoscore
from locoscore._io import sha256_text
from locoscore.data.user_cache import user_cache_file
from locoscore.errors import InputError

MARKER = "locoscore-environment.json"


@dataclass(frozen=True)
class EnvironmentSpec:
    """A named set of pinned requirements (pip requirement strings)."""

    name: str
    requirements: tuple[str, ...]
    # For the user: the command that builds it ahead of a run.
    install_command: str
    # False for a library run as its own program (Letta's server): the environment holds its
    # requirements only (Letta's pins admit no resolution with locoscore's core ones).
    with_locoscore: bool = True

    def all_requirements(self) -> tuple[str, ...]:
        return (*self.requirements, *(core_requirements() if self.with_locoscore else ()))


def core_requirements() -> tuple[str, ...]:
    """Locoscore's own runtime dependencies (no extras), read from its installed metadata."""
    try:
        declared = importlib.metadata.requires("locoscore") or []
    except importlib.metadata.PackageNotFoundError:
        raise InputError(
            "locoscore's package metadata is missing (install it with pip): a system "
            "environment needs its dependency list"
        ) from None
    return tuple(sorted(r for r in declared if "extra ==" not in r))


def python_version() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def environment_key(requirements: tuple[str, ...], python: str) -> str:
    """The hash naming an environment: its requirements (in any order) and Python."""
    text = json.dumps({"python": python, "requirements": sorted(set(requirements))})
    return sha256_text(text)[:12]


def environment_dir(spec: EnvironmentSpec) -> Path:
    key = environment_key(spec.all_requirements(), python_version())
    return user_cache_file("envs") / f"{spec.name}-{key}"


def _python_in(folder: Path) -> Path:
    return folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def built_python(spec: EnvironmentSpec) -> Path | None:
    """The environment's Python when it is built, else None (nothing is built here)."""
    folder = environment_dir(spec)
    python = _python_in(folder)
    if (folder / MARKER).is_file() and python.exists():
        return python
    return None


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR")]
    return (errors or lines or ["no output"])[-1][:300]


def ensure_environment(spec: EnvironmentSpec, *, quiet: bool = True) -> Path:
    """The environment's Python, building the environment first if it is not there.

    A build that fails (no network, a pin that does not resolve) is an InputError naming
    the command that builds it; nothing is left behind."""
    python = built_python(spec)
    if python is not None:
        return python
    folder = environment_dir(spec)
    requirements = spec.all_requirements()
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = folder.with_name(f"{folder.name}.partial-{os.getpid()}")
    shutil.rmtree(scratch, ignore_errors=True)
    where = f"the {spec.name} environment ({folder})"
    pip = [str(_python_in(scratch)), "-m", "pip", "install", "--disable-pip-version-check"]
    try:
        steps = [
            [sys.executable, "-m", "venv", str(scratch)],
            # The pip a venv bundles may fail to resolve (Letta's requirements stop Python
            # 3.11's with "Candidate is not for this requirement lxml[html-clean,...]").
            [*pip, "-q", "--upgrade", "pip"],
            [
                *pip, *(["-q"] if quiet else []), *requirements,
            ],
        ]  # fmt: skip
        for step in steps:
            done = subprocess.run(
                step,
                stdout=subprocess.PIPE if quiet else None,
                stderr=subprocess.STDOUT if quiet else None,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                detail = _last_line(done.stdout or "") if quiet else "see pip's output above"
                raise InputError(
                    f"building {where} failed (exit {done.returncode}: {detail}); it needs "
                    f"PyPI: run `{spec.install_command}` where PyPI is reachable"
                )
        marker = {"name": spec.name, "python": python_version(), "requirements": requirements}
        (scratch / MARKER).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
        try:
            scratch.rename(folder)
        except OSError:  # built meanwhile by another process: use that one
            if built_python(spec) is None:
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    python = built_python(spec)
    if python is None:  # pragma: no cover - the rename succeeded or another build did
        raise InputError(f"building {where} left no Python at {_python_in(folder)}")
    return python


def python_path(spec: EnvironmentSpec) -> Path:
    """A folder holding only a link to the running locoscore package: the PYTHONPATH under
    which the environment's Python imports this very locoscore (one folder per checkout)."""
    package = Path(locoscore.__file__).resolve().parent
    digest = sha256_text(str(package))[:12]
    folder = environment_dir(spec) / "locoscore-path" / digest
    link = folder / "locoscore"
    if not link.exists():
        folder.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):  # made meanwhile by another process
            link.symlink_to(package, target_is_directory=True)
    return folder


def environment_variables(spec: EnvironmentSpec) -> dict[str, str]:
    """This process's environment for a child run by the environment's Python: locoscore
    importable, nothing of the main environment's site-packages."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONPATH"] = str(python_path(spec))
    env.pop("VIRTUAL_ENV", None)
    return env
