"""`locoscore merge`: the N shard folders of one run (`run --shard I/N`) as one folder.

The shards are checked to belong together first (same benchmark, data file, run signature
but for the shard, judge signature, shard count; disjoint; complete unless
`--allow-partial`); a refusal is one line naming what differs, and nothing is written.

The merge is exact because it is not an average of the shards' numbers: the prediction
lines are joined in the order the unsharded run writes them (the data file's question
order), and the benchmark scores them as it scores any run (`Benchmark.score_run`), so
scores.jsonl and every number of summary.json are those of the unsharded run. run.json's
counts, calls, tokens and costs are the shards' summed; its measures are recomputed from
the joined lines; figures of how each shard went (latencies, concurrency) are the joined
lines' or the first shard's. The shards' run states and judge caches are joined too, so
the merged folder resumes like any run folder, and a judge of it (same flags as the
shards', which `locoscore merge` rebuilds from their judge section and runs itself) takes
every verdict from the joined cache: no call is made twice.

Everything is checked before `--out` (new or empty) is written; a merge that fails while
writing empties it again.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl, write_json_atomic, write_jsonl_atomic
from locoscore.benchmarks import Benchmark, get_benchmark
from locoscore.data.selection import merged_selection
from locoscore.data.shard import shard_of, without_shard
from locoscore.errors import InputError
from locoscore.generic.floors import record_floors
from locoscore.llm.ledger import append_attempts
from locoscore.results.folder import load_summary
from locoscore.results.layout import JUDGE_CACHE, PREDICTIONS, RUN_JSON, RUN_STATE, SUMMARY


@dataclass
class ShardFolder:
    path: Path
    run: dict[str, Any]
    records: list[dict[str, Any]]
    summary: dict[str, Any]

    @property
    def index(self) -> int:
        return int(self.run["shard"]["index"])

    @property
    def count(self) -> int:
        return int(self.run["shard"]["count"])


def read_shard(path: Path) -> ShardFolder:
    run_path = path / RUN_JSON
    if not path.is_dir():
        raise InputError("not a folder", file=str(path))
    try:
        run = json.loads(run_path.read_text(encoding="utf-8"))
    except OSError:
        raise InputError("no run.json: not a finished run's folder", file=str(path)) from None
    except ValueError:
        raise InputError("run.json is not valid JSON", file=str(run_path)) from None
    shard = run.get("shard") if isinstance(run, dict) else None
    if not isinstance(shard, dict) or not {"index", "count"} <= set(shard):
        raise InputError("not a shard's folder (run.json has no shard)", file=str(run_path))
    try:
        records = read_jsonl(path / PREDICTIONS)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the predictions ({exc})", file=str(path)) from None
    return ShardFolder(path, run, records, load_summary(path))


def _differing_part(a: str, b: str) -> str:
    parts_a, parts_b = a.split("|"), b.split("|")
    for x, y in zip(parts_a, parts_b, strict=False):
        if x != y:
            return f"{x} vs {y}"
    return f"{a} vs {b}"


def _judge_signature(summary: dict[str, Any]) -> str | None:
    judge = summary.get("judge")
    signature = judge.get("signature") if isinstance(judge, dict) else None
    return None if signature is None else without_shard(str(signature))


def _selection_difference(a: ShardFolder, b: ShardFolder) -> str | None:
    """How two shards' selections differ (the conversations their runs split), or None;
    shards written before the selection was recorded are compared by their population."""
    sel_a, sel_b = a.run["shard"].get("selection"), b.run["shard"].get("selection")
    if isinstance(sel_a, list) and isinstance(sel_b, list):
        if sel_a == sel_b:
            return None
        only_a = [c for c in sel_a if c not in sel_b]
        only_b = [c for c in sel_b if c not in sel_a]
        return f"conversations {_listed(only_a)} vs {_listed(only_b)}"
    pop_a, pop_b = a.run["shard"].get("population"), b.run["shard"].get("population")
    if pop_a != pop_b:
        return f"{pop_a} vs {pop_b} questions in all"
    return None


def _listed(ids: list[str]) -> str:
    shown = ",".join(ids[:4]) or "none other"
    return f"{shown},... ({len(ids)})" if len(ids) > 4 else shown


def check_shards(shards: Sequence[ShardFolder], *, allow_partial: bool) -> None:
    """Refuse shards that do not belong together: one line naming what differs."""
    first = shards[0]
    for other in shards[1:]:
        where = f"{first.path} and {other.path}"
        if other.run.get("benchmark") != first.run.get("benchmark"):
            raise InputError(
                f"shards of different benchmarks ({first.run.get('benchmark')} vs "
                f"{other.run.get('benchmark')}): {where}"
            )
        sha_a = (first.run.get("dataset") or {}).get("sha256")
        sha_b = (other.run.get("dataset") or {}).get("sha256")
        if sha_a != sha_b:
            raise InputError(f"shards of different data files ({sha_a} vs {sha_b}): {where}")
        if other.count != first.count:
            raise InputError(
                f"shards of different shard counts ({first.count} vs {other.count}): {where}"
            )
        if (selection := _selection_difference(first, other)) is not None:
            raise InputError(f"shards of different selections ({selection}): {where}")
        sig_a = without_shard(str(first.run.get("signature")))
        sig_b = without_shard(str(other.run.get("signature")))
        if sig_a != sig_b:
            raise InputError(f"shards of different runs ({_differing_part(sig_a, sig_b)}): {where}")
        judge_a, judge_b = _judge_signature(first.summary), _judge_signature(other.summary)
        if judge_a != judge_b:
            detail = (
                "one is judged, the other not"
                if judge_a is None or judge_b is None
                else _differing_part(judge_a, judge_b)
            )
            raise InputError(f"shards judged differently ({detail}): {where}")
    seen: dict[int, Path] = {}
    for shard in shards:
        if shard.index in seen:
            raise InputError(
                f"shard {shard.index}/{shard.count} given twice: {seen[shard.index]} and "
                f"{shard.path}"
            )
        seen[shard.index] = shard.path
    owner: dict[str, Path] = {}
    for shard in shards:
        for record in shard.records:
            qid = str(record.get("question_id"))
            if qid in owner:
                raise InputError(f"question {qid} is in two shards: {owner[qid]} and {shard.path}")
            owner[qid] = shard.path
    missing = [i for i in range(first.count) if i not in seen]
    if missing and not allow_partial:
        listed = ", ".join(f"{i}/{first.count}" for i in missing)
        raise InputError(
            f"missing shard(s) {listed}; add --allow-partial to merge the others as a subset"
        )


def _sum(values: list[Any]) -> Any:
    """Counts, tokens and costs summed through nested sections (None where one is None:
    an unknown cost stays unknown); anything else is the first shard's."""
    if all(isinstance(v, dict) for v in values):
        keys = dict.fromkeys(k for v in values for k in v)
        return {k: _sum([v[k] for v in values if k in v]) for k in keys}
    numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    if values and len(numbers) == len(values):
        total = sum(numbers)
        return round(total, 6) if isinstance(total, float) else total
    mixed = any(v is None for v in values) and any(v is not None for v in values)
    if mixed and all(v is None or isinstance(v, int | float) for v in values):
        return None
    return values[0] if values else None


def _context_fit(values: list[Any]) -> dict[str, Any] | None:
    if any(v is None for v in values):
        return None
    merged = dict(values[0])
    for key in ("questions", "overflowing"):
        merged[key] = sum(int(v[key]) for v in values)
    tops = [v["max_prompt_tokens"] for v in values if v.get("max_prompt_tokens") is not None]
    merged["max_prompt_tokens"] = max(tops, default=None)
    return merged


def merged_document(
    bench: Benchmark,
    shards: Sequence[ShardFolder],
    records: list[dict[str, Any]],
    conversation_order: list[str],
    signature: str,
) -> dict[str, Any]:
    """run.json of the merged folder (without its `predictions`, added once written)."""
    from locoscore.run.measures import ingestion_totals, run_measures

    docs = [s.run for s in shards]
    held = {cid for d in docs for cid in d.get("conversations") or []}
    per_conversation: dict[str, Any] = {}
    for cid in conversation_order:
        for d in docs:
            if cid in (d["ingestion"]["per_conversation"] or {}):
                per_conversation[cid] = d["ingestion"]["per_conversation"][cid]
    answer_calls = _sum([d["answer_calls"] for d in docs])
    answer_calls["usage"] = docs[0]["answer_calls"].get("usage")
    concurrency = [d["answer_calls"].get("concurrency") for d in docs]
    answer_calls["concurrency"] = None if concurrency[0] is None else concurrency[0]
    reasons = [d["answer_calls"].get("cost_unknown_reason") for d in docs]
    if any(reasons):
        answer_calls["cost_unknown_reason"] = next(r for r in reasons if r)
    doc = {k: v for k, v in docs[0].items() if k not in ("shard", "predictions")}
    doc.update(
        signature=signature,
        conversations=[c for c in conversation_order if c in held],
        questions=len(records),
        ingestion={
            "per_conversation": per_conversation,
            "totals": ingestion_totals(per_conversation),
            "all_attempts": _sum([d["ingestion"]["all_attempts"] for d in docs]),
        },
        answer_calls=answer_calls,
        context_fit=_context_fit([d.get("context_fit") for d in docs]),
        measures=run_measures(records, bench.type_order, bench.evidence_metric()),
        warnings=list(dict.fromkeys(w for d in docs for w in d.get("warnings") or [])),
        stop_reason=next((d["stop_reason"] for d in docs if d.get("stop_reason")), None),
        merged_from={
            "shards": [s.run["shard"] for s in shards],
            "folders": [str(s.path) for s in shards],
            # the shards' judge signature: `judge` of the merged folder writes its results
            "judged": _judge_signature(shards[0].summary),
        },
        finished_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    )
    partial = next((p for p in signature.split("|") if p.startswith("shards:")), None)
    selection = merged_selection(docs[0].get("selection"), partial, len(records))
    if selection is not None:
        doc["selection"] = selection
    return doc


def join_sqlite(target: Path, sources: list[Path], tables: dict[str, str]) -> None:
    """Copy the rows of `tables` ({table: job column or ''}) of every source into target
    (the first source is copied whole first); the `attempts` ledger is renumbered so
    the shards' attempts all count as earlier attempts of the merged folder."""
    present = [p for p in sources if p.is_file()]
    if not present:
        return
    # the backup API, not a file copy: it reads what a WAL file still holds
    source_conn = sqlite3.connect(str(present[0]))
    conn = sqlite3.connect(str(target), isolation_level=None)
    try:
        source_conn.backup(conn)
    finally:
        source_conn.close()
    try:
        conn.execute("PRAGMA journal_mode=DELETE")
        for source in present[1:]:
            conn.execute("ATTACH DATABASE ? AS shard", (str(source),))
            names = {r[0] for r in conn.execute("SELECT name FROM shard.sqlite_master")}
            for table in tables:
                if table in names:
                    conn.execute(f"INSERT OR IGNORE INTO main.{table} SELECT * FROM shard.{table}")
            if "attempts" in names:
                append_attempts(conn, "shard")
            conn.execute("DETACH DATABASE shard")
    finally:
        conn.close()


def merge_folders(
    folders: Sequence[Path], out: Path, *, dataset: Path | None = None, allow_partial: bool = False
) -> dict[str, Any]:
    """Check, then merge; the merged summary (with `_written` naming the files)."""
    if not folders:
        raise InputError("give the shard folders to merge")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError("exists and is not empty; choose a new folder", file=str(out))
    resolved_out = out.resolve()
    if any(f.resolve() == resolved_out for f in folders):
        raise InputError("is one of the shards; choose a new folder", file=str(out))
    shards = sorted((read_shard(Path(f)) for f in folders), key=lambda s: s.index)
    check_shards(shards, allow_partial=allow_partial)
    first = shards[0]
    # a third-party benchmark is found again by the spec its run recorded, not its name
    bench = get_benchmark(first.run.get("benchmark_source") or first.run.get("benchmark"))
    recorded = first.run.get("dataset") or {}
    data = bench.load(dataset or recorded.get("path"))
    if data.sha256 != recorded.get("sha256"):
        raise InputError(
            f"is not the shards' data file (sha256 {data.sha256[:12]}, the shards': "
            f"{str(recorded.get('sha256'))[:12]})",
            file=str(data.path),
            field="--dataset",
        )
    conversations = bench.conversations(data)
    order = {q.question_id: i for i, q in enumerate(bench.questions(data, conversations))}
    records = [r for s in shards for r in s.records]
    unknown = next((r for r in records if r.get("question_id") not in order), None)
    if unknown is not None:
        raise InputError(f"question {unknown.get('question_id')} is not in the data file")
    records.sort(key=lambda r: order[r["question_id"]])
    signature = without_shard(str(first.run["signature"]))
    if len(shards) < first.count:  # a subset: its signature says which shards it holds
        held = "+".join(str(s.index) for s in shards)
        signature = signature.replace("|version:", f"|shards:{held}/{first.count}|version:")
    document = merged_document(
        bench, shards, records, [c.conversation_id for c in conversations], signature
    )
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        summary = _write(bench, data, shards, records, document, out)
    except BaseException:  # a merge that fails half way leaves no half-merged folder
        for child in out.iterdir():
            shutil.rmtree(child) if child.is_dir() else child.unlink()
        if created:
            out.rmdir()
        raise
    return summary


def _write(
    bench: Benchmark,
    data: Any,
    shards: Sequence[ShardFolder],
    records: list[dict[str, Any]],
    document: dict[str, Any],
    folder: Path,
) -> dict[str, Any]:
    predictions = folder / PREDICTIONS
    write_jsonl_atomic(predictions, records)
    identity = bench.records_identity(str(predictions), records)
    document["predictions"] = identity.to_json()
    write_json_atomic(folder / RUN_JSON, document)
    join_sqlite(
        folder / RUN_STATE,
        [s.path / RUN_STATE for s in shards],
        {"answers": "", "questions": "", "ingested": ""},
    )
    if (folder / RUN_STATE).is_file():
        conn = sqlite3.connect(str(folder / RUN_STATE), isolation_level=None)
        try:  # the merged folder's state belongs to the merged run
            conn.execute(
                "INSERT OR REPLACE INTO meta VALUES ('signature', ?)", (document["signature"],)
            )
        finally:
            conn.close()
    join_sqlite(folder / JUDGE_CACHE, [s.path / JUDGE_CACHE for s in shards], {"judgments": ""})
    run_section = {k: v for k, v in document.items() if k != "finished_at"}
    summary = bench.score_run(predictions, data, folder, run_section)
    if not (folder / SUMMARY).is_file():
        raise InputError("the benchmark wrote no summary.json", file=str(folder))
    asked = {r["question_id"] for r in records}
    questions = [
        q for q in bench.questions(data, bench.conversations(data)) if q.question_id in asked
    ]
    return record_floors(folder, summary, bench, data, questions)


__all__ = ["check_shards", "merge_folders", "merged_document", "read_shard", "shard_of"]
