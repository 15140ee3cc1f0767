"""The `locoscore` command. Only wiring: every behaviour lives in the library modules.

Each sub-command lives in its own module in this package and registers itself on `app`;
importing the package imports them all, so adding a command never edits this file.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import typer

from locoscore.cli._app import app, main

for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_module.name}")


def unwrap_help(text: str) -> str:
    """Docstring line breaks are source formatting, not text: join each paragraph's lines
    into one, so `--help` never shows a sentence cut at a docstring's line break."""
    paragraphs = [" ".join(p.split()) for p in inspect.cleandoc(text).split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)


def _unwrap_all(group: typer.Typer) -> None:
    for command in group.registered_commands:
        text = command.help or inspect.getdoc(command.callback)
        if text:
            command.help = unwrap_help(text)
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            _unwrap_all(sub.typer_instance)


_unwrap_all(app)

__all__ = ["app", "main"]
