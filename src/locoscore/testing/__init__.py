"""Test doubles shipped with locoscore: a fake LLM provider speaking the Anthropic and
OpenAI wire formats (see `locoscore.testing.fake_provider`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from locoscore.testing.fake_provider import FakeConfig, FakeProvider

__all__ = ["FakeConfig", "FakeProvider"]


def __getattr__(name: str) -> Any:
    # Imported lazily so `python -m locoscore.testing.fake_provider` does not import the
    # module twice (runpy warns when a package already imported its __main__ module).
    if name in __all__:
        from locoscore.testing import fake_provider

        return getattr(fake_provider, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
