"""Shards and their merge: CLI calls and an exact comparison of two results folders."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from locoscore.cli import app

# Figures of how a run went, not of what it found: they differ between any two runs.
TIMING = ("_latency_s", "latency_s", "wall_s", "wall_s_per_conversation", "concurrency")
# What names files by their bytes or paths (the timings above are in those bytes).
PROVENANCE = ("path", "sha256", "scores_sha256", "computed_from", "finished_at", "merged_from")
# Whether a verdict or an answer came from a cache: how a pass went, not what it found.
HOW = ("cached",)


def cli(*args: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CliRunner().invoke(app, [*args])


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _skip(key: str) -> bool:
    return key.endswith(TIMING) or key in PROVENANCE or key in HOW


def strip(value: Any) -> Any:
    """`value` without its timing and provenance fields, at every depth."""
    if isinstance(value, dict):
        # warnings come in the order the conversations finished: compared as a set
        return {
            k: sorted(v) if k == "warnings" and isinstance(v, list) else strip(v)
            for k, v in value.items()
            if not _skip(k)
        }
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Every place two documents differ (after `strip`), for a readable failure."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}/{k}: only in one" for k in set(a) ^ set(b)]
        for k in a.keys() & b.keys():
            out += differences(a[k], b[k], f"{path}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (x, y) in pairs for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def assert_same_results(
    whole: Path, merged: Path, files: tuple[str, ...], *, summary: bool = True
) -> None:
    """The merged folder's rows and every number of its summary equal the unsharded run's."""
    for name in files:
        a, b = strip(jsonl(whole / name)), strip(jsonl(merged / name))
        assert len(a) == len(b) and a == b, f"{name}: {differences(a, b)[:5]}"
    if not summary:
        return
    summary_a = strip(json.loads((whole / "summary.json").read_text()))
    summary_b = strip(json.loads((merged / "summary.json").read_text()))
    for section in (summary_a, summary_b):
        section.pop("judge", None)  # compared by the judge tests, calls aside
    assert summary_a == summary_b, differences(summary_a, summary_b)[:10]
