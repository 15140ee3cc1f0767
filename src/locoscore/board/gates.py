"""Each board row's claim gates (`claim.gates`, at `verify`'s default thresholds, no floor):
a row that fails one is marked and never shown as the leader of its group.

The board shows by itself what four gates say: an unscored row has no rank, the fake
provider and the judge are in every row's signature, and the data file is named by its sha256
in the group's identity (a row whose file is not at hand to re-derive from keeps the rank of
its own numbers, as boards of folders from elsewhere need; `verify` fails it closed). Those
gates are `verify`'s (`BOARD_SHOWS`); the others unrank a row."""

from __future__ import annotations

from pathlib import Path

from locoscore.board.entries import Entry

BOARD_SHOWS = frozenset({"scored", "real models", "judge independent", "question set"})


def _failed(folder: Path) -> tuple[str, ...]:
    from locoscore.benchmarks import get_benchmark, recorded_benchmark
    from locoscore.claim.gates import Permissions
    from locoscore.claim.verify import verify
    from locoscore.errors import InputError

    allowed = Permissions(fake=True, self_judge=True)
    try:
        verdict = verify(folder, get_benchmark(recorded_benchmark(folder)), permissions=allowed)
    except InputError as exc:  # a claim that cannot be checked is not one to lead with
        return (f"consistent: cannot verify the folder: {exc}",)
    return tuple(f"{g.name}: {g.line}" for g in verdict.failed if g.name not in BOARD_SHOWS)


def failed_gates(entry: Entry) -> tuple[str, ...]:
    """The gates the entry's folder fails, one line each with its figure (empty: passes)."""
    return _failed(Path(entry.folder).resolve())


def gate_names(lines: tuple[str, ...]) -> str:
    """A row's gate status in a word: pass, or FAIL and the names of the gates it fails."""
    return "pass" if not lines else "FAIL " + ", ".join(line.split(":", 1)[0] for line in lines)
