"""Which questions of a benchmark a results folder holds: its selection, recorded, signed and
compared.

A folder's questions are chosen in steps, each one recorded where it was made: the
conversations a run was given (`--conversations`), a sample (`--limit`), a shard (`--shard
I/N`, or the shards a partial `merge` holds), the judge's own sample of a run's answers
(`judge --limit` of a whole run), or none of the benchmark's: a file of answers scored or
judged as it is. The selection's signature joins the steps' components in that order; the
whole benchmark has none (`all`), so a whole-benchmark run's signature is unchanged.

- `convs:K/N@H`: K of the data file's N conversations, H the first 12 hex digits of the
  sha256 of their sorted ids (JSON list); part of a run's signature, so a rerun with other
  `--conversations` into the same folder is refused like any other changed input.
- `sample:...`, `shard:I/N`, `shards:I+J/N`: as their own signatures (`data.sample`,
  `data.shard`, `run.merge`).
- `judged:sample:...`: the judge drew a sample of the run's answers; the headline is over it.
- `answers:K@H`: no run: the K questions of a file of answers, H over their sorted ids.

Two folders hold the same selection when their headlines are over the same questions: the
sha256 of the sorted ids (`questions_sha256`) decides, the signature says how each was drawn.
`merge`, `compare`, the board and `verify --floor/--ceiling` refuse folders that differ.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from locoscore._io import sha256_text
from locoscore.errors import InputError
from locoscore.results.folder import row_key
from locoscore.results.layout import PREDICTIONS, RUN_JSON, SCORES, SUMMARY

ALL = "all"
_CONVS = "convs:"


def ids_sha256(ids: Iterable[str]) -> str:
    """sha256 over the sorted, distinct ids as a compact JSON list."""
    listed = sorted(set(ids))
    return sha256_text(json.dumps(listed, separators=(",", ":")))


def conversations_component(chosen: Sequence[str], total: int) -> str | None:
    """`convs:K/N@H` for a strict subset of the file's conversations; None for all."""
    distinct = set(chosen)
    if len(distinct) >= total:
        return None
    return f"{_CONVS}{len(distinct)}/{total}@{ids_sha256(distinct)[:12]}"


def run_selection(
    conversations: Sequence[str],
    total_conversations: int,
    *,
    sample: str | None,
    shard: str | None,
    questions: int,
) -> dict[str, Any]:
    """run.json's `selection`: the steps a run took (the questions' hash is its answers')."""
    steps = {
        "conversations": conversations_component(conversations, total_conversations),
        "sample": sample,
        "shard": shard,
    }
    return {
        "signature": "|".join(v for v in steps.values() if v) or ALL,
        **steps,
        "conversations_of": total_conversations,
        "questions": questions,
    }


def merged_selection(first: Any, held: str | None, questions: int) -> dict[str, Any] | None:
    """The selection of shards merged: the shard step gone, or the shards a partial merge
    holds (`shards:I+J/N`)."""
    if not isinstance(first, dict):
        return None
    merged = {**first, "shard": held, "questions": questions}
    steps = (merged.get("conversations"), merged.get("sample"), held)
    merged["signature"] = "|".join(s for s in steps if s) or ALL
    return merged


def _json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _question_ids(directory: Path) -> list[str]:
    for name in (PREDICTIONS, SCORES):
        path = directory / name
        if not path.is_file():
            continue
        ids = []
        try:
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    row = json.loads(line)
                    qid = row.get("question_id") if isinstance(row, dict) else None
                    ids.append(str(qid) if qid is not None else row_key(row))
        except (OSError, ValueError, AttributeError):
            continue
        return list(dict.fromkeys(ids))
    return []


def _section(document: Any, *keys: str) -> Any:
    for key in keys:
        document = document.get(key) if isinstance(document, dict) else None
    return document


def folder_selection(directory: Path) -> dict[str, Any]:
    """The selection of the questions a folder's headline is over (see the module doc):
    its signature, its steps, how many questions and the sha256 of their ids. A folder
    written before selections were recorded gives what its run.json says (its sample and
    shard; its conversations are then not known)."""
    summary = _json(directory / SUMMARY)
    run = _json(directory / RUN_JSON) or _section(summary, "run") or {}
    ids = _question_ids(directory)
    steps: dict[str, Any] = {}
    recorded = run.get("selection") if isinstance(run, dict) else None
    run_sample = _section(run, "sample", "signature")
    if isinstance(recorded, dict):
        steps = {k: recorded.get(k) for k in ("conversations", "sample", "shard")}
    elif run:
        steps = {"sample": run_sample, "shard": _section(run, "shard", "signature")}
    else:
        steps = {"answers": f"answers:{len(ids)}@{ids_sha256(ids)[:12]}"}
    judged = _section(summary, "judge", "sample")
    if isinstance(judged, dict) and judged.get("signature") != run_sample:
        steps["judged"] = f"judged:{judged.get('signature')}"
        chosen = {str(i) for i in judged.get("question_ids") or ()}
        ids = [i for i in ids if i in chosen]
    return {
        "signature": "|".join(str(v) for v in steps.values() if v) or ALL,
        **steps,
        "questions": len(ids),
        "questions_sha256": ids_sha256(ids),
        "recorded": isinstance(recorded, dict) or not run,
    }


def selection_mismatch(
    folders: Sequence[Path], names: Sequence[str] | None = None, *, drawn_only: bool = False
) -> str | None:
    """One line naming two folders whose headlines are over other questions (their ids'
    hashes differ; with `drawn_only`, for a caller that names other ids of one draw itself,
    only when their signatures differ too); None when every folder holds the same ones."""
    names = list(names or [str(f) for f in folders])
    found = [folder_selection(f) for f in folders]
    first = found[0]
    for name, other in zip(names[1:], found[1:], strict=True):
        same_draw = other["signature"] == first["signature"]
        if other["questions_sha256"] != first["questions_sha256"] and not (
            drawn_only and same_draw
        ):
            return (
                f"hold other questions: {names[0]} is {first['questions']:,} question(s) "
                f"({first['signature']}), {name} {other['questions']:,} "
                f"({other['signature']}); use folders of one selection"
            )
    return None


def refuse_mismatch(
    folders: Sequence[Path], names: Sequence[str] | None = None, *, drawn_only: bool = False
) -> None:
    """`selection_mismatch` as bad input (exit 2)."""
    if (line := selection_mismatch(folders, names, drawn_only=drawn_only)) is not None:
        raise InputError(line)
