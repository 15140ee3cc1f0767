"""The `locoscore` command. Only wiring: every behaviour lives in the library modules.

Each sub-command lives in its own module in this package and registers itself on `app`;
importing the package imports them all, so adding a command never edits this file.
"""

from __future__ import annotations

import importlib
import pkgutil

from locoscore.cli._app import app, main

for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_module.name}")

__all__ = ["app", "main"]
