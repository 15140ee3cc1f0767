"""The `bound` gate of `locoscore verify`: every file locoscore wrote in the folder is still
the file it wrote (`results.manifest`). A folder without a manifest (written before
manifests, or by hand) is unbound: a warning, or a failure with `verify --strict`."""

from __future__ import annotations

from pathlib import Path

from locoscore.claim.gates import Gate
from locoscore.results.layout import MANIFEST
from locoscore.results.manifest import check

UNBOUND = (
    f"unbound: the folder has no {MANIFEST}, so an edited file cannot be told from one "
    "locoscore wrote (rerun the commands that wrote it to bind it)"
)


def bound_gate(directory: Path, *, strict: bool = False) -> tuple[Gate, list[str]]:
    """The gate, and the warning an unbound folder gets when it does not fail."""
    found = check(directory)
    if not found.bound:
        if strict:
            return Gate("bound", "fail", f"{UNBOUND} (--strict)"), []
        return Gate("bound", "n/a", UNBOUND), [UNBOUND]
    if not found.ok:
        return Gate("bound", "fail", f"folder files edited: {'; '.join(found.problems())}"), []
    if found.unbound:
        older = (
            f"partly unbound: {', '.join(found.unbound)} were written before the folder's "
            f"{MANIFEST} was begun (by an older locoscore), so their edits cannot be told"
        )
        if strict:
            return Gate("bound", "fail", f"{older} (--strict)"), []
        return Gate("bound", "n/a", older), [older]
    figure = f"{found.files} files in {MANIFEST}"
    return Gate("bound", "pass", f"every file as locoscore wrote it ({figure})"), []
