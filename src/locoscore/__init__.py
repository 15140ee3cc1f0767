"""locoscore: defensible LoCoMo scores for conversational memory systems."""

from locoscore._version import __version__

__all__ = ["__version__"]
