"""Tests that need a system's own environment skip where it is not built, except where
`LOCOSCORE_REQUIRE_ENVIRONMENTS` names it (CI, which builds them): there a missing one is an
error, so a build that failed or never ran cannot pass as a skipped test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REQUIRED = "LOCOSCORE_REQUIRE_ENVIRONMENTS"


def skip_unless_built(name: str, python: Path | str | None, reason: str) -> pytest.MarkDecorator:
    required = {n.strip() for n in os.environ.get(REQUIRED, "").split(",") if n.strip()}
    if python is None and name in required:
        raise RuntimeError(f"{REQUIRED} names {name}, whose environment is not built: {reason}")
    return pytest.mark.skipif(python is None, reason=reason)
