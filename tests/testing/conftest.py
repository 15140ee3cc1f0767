from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from locoscore.testing import FakeConfig, FakeProvider

# The SDK helpers shared by the fake-provider tests (fakeprov_helpers.py) import from here.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    """A fake provider with the default configuration, on a random port."""
    with FakeProvider(FakeConfig()) as provider:
        yield provider
