"""Each board row's claim gates (`claim.gates`, at `verify`'s default thresholds, no floor):
a row that fails one is marked and never shown as the leader of its group."""

from __future__ import annotations

from pathlib import Path

from locoscore.board.entries import Entry


def _failed(folder: Path) -> tuple[str, ...]:
    from locoscore.benchmarks import get_benchmark, recorded_benchmark
    from locoscore.claim.verify import verify
    from locoscore.errors import InputError

    try:
        verdict = verify(folder, get_benchmark(recorded_benchmark(folder)))
    except InputError as exc:  # a claim that cannot be checked is not one to lead with
        return (f"consistent: cannot verify the folder: {exc}",)
    return tuple(f"{g.name}: {g.line}" for g in verdict.failed)


def failed_gates(entry: Entry) -> tuple[str, ...]:
    """The gates the entry's folder fails, one line each with its figure (empty: passes)."""
    return _failed(Path(entry.folder).resolve())


def gate_names(lines: tuple[str, ...]) -> str:
    """A row's gate status in a word: pass, or FAIL and the names of the gates it fails."""
    return "pass" if not lines else "FAIL " + ", ".join(line.split(":", 1)[0] for line in lines)
