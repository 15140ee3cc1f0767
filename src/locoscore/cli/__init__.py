"""The `locoscore` command. Only wiring: every behaviour lives in the library modules.

Each sub-command lives in its own module and registers itself on `app`.
"""

from __future__ import annotations

from locoscore.cli._app import app, main
from locoscore.cli import dataset as _dataset  # noqa: F401  (registers commands)

__all__ = ["app", "main"]
