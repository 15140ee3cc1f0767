"""A results folder's manifest (`manifest.json`): the sha256 of every file locoscore wrote in
it, and of every input a command read to write them.

Every command that writes a results folder (`run`, its shards and `merge`, `score`, `judge`
and a judge panel, `audit`, `report`, `reprice`) runs inside `bound(folder, command)`. While
it runs, every atomic write (`_io.write_bytes_atomic`) under the folder is recorded with the
sha256 of the bytes written; when it ends, those entries replace the folder's earlier ones
for the same files (so the manifest always describes the bytes locoscore wrote last), and the
inputs the command read (`Binding.read`: the data file, a predictions file, prompt files,
another folder's manifest) are recorded under the command's name. Nothing written: the
manifest is left as it was (a refused command or a dry run binds nothing).

What is bound: every file written through `_io`, the reports (md, html, csv) included (a
reader is shown them: an edited report is an edited result), in the folder and its
subfolders (a panel's `judges/<name>/`, a run's `shards/`). Not bound: the resumable caches
(sqlite files, written in place) and the memory system's own stores (`system_state/`).

`check(folder)` re-hashes every recorded file: a file changed or removed since it was
recorded, or a result file the manifest does not name (put there by hand), is a finding; a
rendered page (report, audit or panel md/html/csv) that is absent is not (a folder shared
without its pages still holds every number, and `report` rebuilds them).
What it cannot catch: a folder forged together with a manifest that agrees with it (the
manifest binds files to each other, not to a signer).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from locoscore._io import listening, sha256_file, write_json_atomic
from locoscore.results.layout import (
    AUDIT_HTML,
    AUDIT_MD,
    MANIFEST,
    PANEL_JSON,
    PANEL_MD,
    REPORT_FILES,
    RESULT_FILES,
    RUN_FILES,
    RUN_JSON,
    SUMMARY,
    SYSTEM_STATE,
)

MANIFEST_VERSION = 1
# Result files a folder of a manifest must have recorded when they are there.
_KNOWN = (*RUN_FILES, *RESULT_FILES, PANEL_JSON, PANEL_MD)
# Written by locoscore but not bound (a store of the memory system, rewritten by it).
_NOT_BOUND = (SYSTEM_STATE,)
# Pages rendered from the records (`report` rebuilds them): one edited is a finding, one
# absent is not (a folder shared without its pages still holds every number).
_RENDERED = frozenset((*REPORT_FILES, AUDIT_MD, AUDIT_HTML, PANEL_MD))
# Where a command's own record names, with its sha256, a file it read (the data file, the
# predictions scored or judged): (file, role, keys); a command given them on the command
# line records them itself too, but the default data file is known only once loaded.
_READ_SECTIONS: dict[str, tuple[tuple[str, str, tuple[str, ...]], ...]] = {
    "run": ((RUN_JSON, "dataset", ("dataset",)),),
    "merge": ((RUN_JSON, "dataset", ("dataset",)),),
    "score": ((SUMMARY, "dataset", ("dataset",)), (SUMMARY, "predictions", ("input",))),
    "judge": ((SUMMARY, "dataset", ("dataset",)), (SUMMARY, "predictions", ("judge", "input"))),
}


def _sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _tree_sha256(folder: Path) -> str:
    """A folder input (a data folder): sha256 over the sorted (relative path, sha256) pairs."""
    pairs = sorted(
        (p.relative_to(folder).as_posix(), sha256_file(p)) for p in folder.rglob("*") if p.is_file()
    )
    return _sha256_bytes(json.dumps(pairs, separators=(",", ":")).encode("utf-8"))


def input_record(path: Path) -> dict[str, Any]:
    """An input as the manifest records it: its path and sha256 (of a results folder: its
    manifest's; of another folder: its files'); `missing` when it is not there."""
    if path.is_file():
        return {"path": str(path), "sha256": sha256_file(path)}
    if (path / MANIFEST).is_file():
        return {"path": str(path), "manifest_sha256": sha256_file(path / MANIFEST)}
    if path.is_dir():
        return {"path": str(path), "tree_sha256": _tree_sha256(path)}
    return {"path": str(path), "missing": True}


def read_manifest(directory: Path) -> dict[str, Any] | None:
    """The folder's manifest; None when it has none. An unreadable one raises ValueError."""
    path = directory / MANIFEST
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{MANIFEST} cannot be read ({exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("files"), dict):
        raise ValueError(f"{MANIFEST} has no `files` record")
    return doc


def _empty() -> dict[str, Any]:
    return {
        "manifest": MANIFEST_VERSION,
        "hash": "sha256",
        "rule": (
            "every file locoscore wrote in this folder, with the sha256 of the bytes it "
            "wrote last; the inputs each command read"
        ),
        "files": {},
        "inputs": {},
    }


def _sections_read(
    command: str, written: Mapping[str, Any], directory: Path
) -> dict[str, dict[str, Any]]:
    """The inputs `command`'s written run.json or summary.json record with their sha256."""
    found: dict[str, dict[str, Any]] = {}
    for name, role, keys in _READ_SECTIONS.get(command, ()):
        if name not in written:
            continue
        try:
            section: Any = json.loads((directory / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for key in keys:
            section = section.get(key) if isinstance(section, dict) else None
        if isinstance(section, dict) and isinstance(section.get("sha256"), str):
            found[role] = {"path": str(section.get("path")), "sha256": section["sha256"]}
    return found


def record(
    directory: Path,
    command: str,
    written: Mapping[str, dict[str, Any]],
    *,
    inputs: Mapping[str, dict[str, Any]] | None = None,
    forgotten: tuple[str, ...] = (),
) -> None:
    """Update the folder's manifest: `written` (relative path -> its entry) replaces the
    entries of those files, `forgotten` files leave it, `inputs` become `command`'s. An
    unreadable manifest is started anew (the files it no longer names then show as not
    recorded: nothing is vouched for that was not written here). A manifest begun in a
    folder of an older locoscore lists the result files it found there as `unbound`."""
    try:
        doc = read_manifest(directory)
    except ValueError:
        doc = _empty()
    if doc is None:
        doc = _empty()
        found = [n for n in _KNOWN if (directory / n).is_file() and n not in written]
        if found:
            doc["unbound"] = found
    files = dict(doc["files"])
    for name in forgotten:
        files.pop(name, None)
    files.update(written)
    doc["files"] = dict(sorted(files.items()))
    if "unbound" in doc:  # a file written now is bound from now on
        doc["unbound"] = [n for n in doc["unbound"] if n not in files and n not in forgotten]
    if inputs is not None or written:
        read = {**_sections_read(command, written, directory), **(inputs or {})}
        doc["inputs"] = {**(doc.get("inputs") or {}), command: read}
    write_json_atomic(directory / MANIFEST, doc)


def forget(directory: Path, names: tuple[str, ...] | list[str]) -> None:
    """Files removed from the folder (`--replace`) leave its manifest, when it has one."""
    if names and (directory / MANIFEST).is_file():
        record(directory, "", {}, forgotten=tuple(names))


@dataclass
class Binding:
    """The files one command writes into a folder, and what it read."""

    directory: Path
    command: str
    written: dict[str, dict[str, Any]] = field(default_factory=dict)
    inputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self._root = self.directory.resolve()

    def read(self, role: str, path: Path | None) -> None:
        """An input this command read (`role`: dataset, predictions, answer prompt, ...)."""
        if path is not None:
            self.inputs[role] = input_record(path)

    def wrote(self, path: Path, data: bytes) -> None:
        try:
            relative = path.resolve().relative_to(self._root)
        except ValueError:
            return  # another folder
        parts = relative.parts
        if not parts or parts == (MANIFEST,) or parts[0] in _NOT_BOUND:
            return
        entry = {
            "sha256": _sha256_bytes(data),
            "bytes": len(data),
            "by": self.command,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        with self._lock:
            self.written[relative.as_posix()] = entry


@contextmanager
def bound(directory: Path, command: str) -> Iterator[Binding]:
    """Record in `directory`'s manifest what the block writes there (see the module doc).
    The files written are recorded even when the block fails: they are on disk."""
    binding = Binding(directory, command)
    try:
        with listening(binding.wrote):
            yield binding
    finally:
        # a command that removed what it wrote (a failed merge, a run refused late) binds
        # nothing, and never brings back a folder it removed
        kept = {n: e for n, e in binding.written.items() if (directory / n).is_file()}
        if kept:
            record(directory, command, kept, inputs=binding.inputs)


@dataclass(frozen=True)
class Check:
    """What `check` found: `bound` False when the folder has no manifest."""

    bound: bool
    files: int = 0
    changed: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    unrecorded: tuple[str, ...] = ()
    unreadable: str | None = None
    # result files an older locoscore wrote before the manifest was begun: not bound
    unbound: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.bound and not (
            self.changed or self.missing or self.unrecorded or self.unreadable
        )

    def problems(self) -> list[str]:
        """One phrase per finding, naming the files."""
        out = [self.unreadable] if self.unreadable else []
        if self.changed:
            out.append(f"changed since locoscore wrote it: {', '.join(self.changed)}")
        if self.missing:
            out.append(f"recorded but missing: {', '.join(self.missing)}")
        if self.unrecorded:
            names = ", ".join(self.unrecorded)
            out.append(f"not written by locoscore (not in {MANIFEST}): {names}")
        return out


def check(directory: Path) -> Check:
    """Re-hash every file the folder's manifest records."""
    try:
        doc = read_manifest(directory)
    except ValueError as exc:
        return Check(True, unreadable=str(exc))
    if doc is None:
        return Check(False)
    changed, missing = [], []
    for name, entry in doc["files"].items():
        path = directory / name
        recorded = entry.get("sha256") if isinstance(entry, dict) else None
        if not path.is_file():
            if Path(name).name not in _RENDERED:
                missing.append(name)
        elif recorded != sha256_file(path):
            changed.append(name)
    older = set(doc.get("unbound") or ())
    present = [n for n in _KNOWN if (directory / n).is_file() and n not in doc["files"]]
    return Check(
        True,
        len(doc["files"]),
        tuple(changed),
        tuple(missing),
        tuple(n for n in present if n not in older),
        unbound=tuple(n for n in present if n in older),
    )
