"""`locoscore audit`: how lenient is a judge configuration?

The judge of `locoscore judge` (same settings, cache, retries, batch, dry run, cost cap) is
run over probe sets whose right verdict is known: the gold answer as the answer (should be
accepted: the false-reject rate), deliberately wrong answers (should be rejected: the
false-accept rates), and optionally the user's own predictions (to place their J between
the two). All sets go through one pass (`api.run_pass`), so one cost cap, one batch and one
cache cover the audit; a probe record's key carries its set's name, so the same question in
two sets is two calls and a rerun after a crash resumes from `DIR/judge_cache.sqlite`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from locoscore.categories import ADVERSARIAL
from locoscore.data.dataset import Dataset
from locoscore.data.join import join_to_dataset
from locoscore.data.load import load_predictions
from locoscore.data.models import PredictionRecord
from locoscore.data.probes import PINNED_SHA256, REFERENCE_JUDGE_MODEL, ProbeSource
from locoscore.data.readers import read_predictions
from locoscore.data.readers.memos import resolve_question_ids
from locoscore.data.sample import QuestionSample, SampleSpec
from locoscore.errors import InputError
from locoscore.judge.api import PassResult, run_pass
from locoscore.judge.from_records import judge_items
from locoscore.judge.runner import ProgressSink
from locoscore.judge.settings import JudgeSettings
from locoscore.results.folder import load_scores
from locoscore.results.identity import InputIdentity, identity_of_rows
from locoscore.results.layout import JUDGE_CACHE, SCORES
from locoscore.scoring.recorded import recorded_judge_summary

Kind = Literal["gold", "probe", "predictions"]
GOLD_SET = "gold"
PREDICTIONS_SET = "predictions"
DEFAULT_ACCEPT_THRESHOLD = 50.0


class ProbeRecord(PredictionRecord):
    """A question with a probe answer; its key names the probe set, so the same question in
    two sets is judged (and cached) separately. The user's predictions keep the plain key,
    which `locoscore judge` also uses, so their verdicts are shared through the caches."""

    probe_set: str = ""

    @property
    def question_key(self) -> str:
        """The question's own key, the same in every set."""
        return super().key

    @property
    def key(self) -> str:
        base = self.question_key
        return f"{base}@{self.probe_set}" if self.probe_set else base


@dataclass
class ProbeSet:
    name: str
    kind: Kind
    records: list[ProbeRecord]
    source: dict[str, Any]
    recorded: dict[str, Any] | None = None  # the file's own verdicts (recorded J)
    reference: ProbeSource | None = None  # published acceptance for a pinned probe file
    notes: list[str] = field(default_factory=list)
    identity: InputIdentity | None = None  # the user's predictions, as a results folder names them

    @property
    def expect(self) -> str | None:
        """What a sound judge does with every answer in the set."""
        return {"gold": "accept", "probe": "reject"}.get(self.kind)


def _as_probe(record: PredictionRecord, name: str) -> ProbeRecord:
    return ProbeRecord(**record.model_dump(), probe_set=name)


def gold_probe_set(dataset: Dataset) -> ProbeSet:
    """Every non-adversarial question answered with its own gold (scored as `str()`)."""
    records = [
        ProbeRecord(
            sample_id=qa.sample_id,
            qa_index=qa.qa_index,
            conversation=position,
            category=qa.category,
            question=qa.question,
            answer=qa.gold,
            gold_field=qa.gold_field,
            prediction=qa.gold_text,
            source=f"{qa.sample_id}#{qa.qa_index}",
            probe_set=GOLD_SET,
        )
        for position, sample in enumerate(dataset.samples)
        for qa in sample.qa
        if qa.category != ADVERSARIAL
    ]
    source = {"built_from": "dataset", "path": str(dataset.path), "sha256": dataset.sha256}
    return ProbeSet(GOLD_SET, "gold", records, source)


def probe_file_set(path: Path, dataset: Dataset) -> ProbeSet:
    """A MemOS-format file of probe answers; its name is the file's stem. Every id must map
    onto the dataset and agree with its text, category and gold (else InputError)."""
    read = read_predictions(path, "memos")
    records = resolve_question_ids(read.records, dataset, str(path))
    joined, _ = join_to_dataset(records, dataset, strict=True, file=path)
    name = path.stem
    probes = [_as_probe(r, name) for r in joined if r.category != ADVERSARIAL]
    if not probes:
        raise InputError("no non-adversarial questions to probe", file=str(path))
    source = {"path": str(path), "sha256": read.sha256, "format": read.format}
    pinned = PINNED_SHA256.get(read.sha256)
    # the pinned files do not name their judge; their README does
    metadata = {"judge_model": REFERENCE_JUDGE_MODEL} if pinned else {}
    recorded = recorded_judge_summary(probes, {**metadata, **read.metadata})
    return ProbeSet(name, "probe", probes, source, recorded, pinned)


def _results_folder_records(directory: Path) -> tuple[list[PredictionRecord], InputIdentity]:
    """The questions of a locoscore results folder (`scores.jsonl`), and their identity."""
    path = directory / SCORES
    if not path.is_file():
        raise InputError(
            f"not a results folder (no {SCORES}) nor a predictions file", file=str(directory)
        )
    try:
        rows = load_scores(directory)
    except ValueError as exc:
        raise InputError(f"not JSON lines ({exc})", file=str(path)) from None
    records = []
    for number, row in enumerate(rows, 1):
        try:
            records.append(
                PredictionRecord(
                    sample_id=row.get("sample_id"),
                    qa_index=row.get("qa_index"),
                    category=row["category"],
                    question=row["question"],
                    answer=row["answer"],
                    prediction=row["prediction"],
                    source=f"line {number}",
                )
            )
        except (KeyError, ValueError, TypeError) as exc:
            field_name = exc.args[0] if isinstance(exc, KeyError) else None
            raise InputError(
                "missing or invalid", file=str(path), record=f"line {number}", field=field_name
            ) from None
    return records, identity_of_rows(str(directory), rows)


def predictions_set(path: Path, dataset: Dataset, fmt: str | None = None) -> ProbeSet:
    """The user's own predictions: a predictions file (any format) or a results folder."""
    if path.is_dir():
        folder_records, identity = _results_folder_records(path)
        records, _ = join_to_dataset(folder_records, dataset, file=path / SCORES)
        source: dict[str, Any] = {"path": str(path), "format": "results folder"}
        metadata: dict[str, Any] = {}
    else:
        loaded = load_predictions(path, fmt, dataset=dataset.path)
        records = loaded.records
        identity = loaded.identity()
        source = {"path": str(path), "sha256": loaded.read.sha256, "format": loaded.read.format}
        metadata = loaded.read.metadata
    source.update(identity.to_json())
    probes = [_as_probe(r, "") for r in records if r.category != ADVERSARIAL]
    if not probes:
        raise InputError("no non-adversarial predictions", file=str(path))
    return ProbeSet(
        PREDICTIONS_SET,
        "predictions",
        probes,
        source,
        recorded_judge_summary(probes, metadata),
        identity=identity,
    )


def sample_sets(sets: list[ProbeSet], spec: SampleSpec) -> tuple[list[ProbeSet], QuestionSample]:
    """`--limit`: one sample of the gold set's questions (the dataset's non-adversarial ones,
    stratified by category), and every set cut to those questions, so all sets probe the
    same questions."""
    gold = next(s for s in sets if s.kind == "gold")
    sample = spec.draw(gold.records, item_id=lambda r: r.question_key, stratum=lambda r: r.category)
    cut = []
    for s in sets:
        records = sample.keep(s.records, lambda r: r.question_key)
        # the file's own verdicts, on the same questions as the judge's
        recorded = s.recorded and recorded_judge_summary(
            records, {"judge_model": s.recorded.get("judge_model")}
        )
        cut.append(dataclasses.replace(s, records=records, recorded=recorded or None))
    return cut, sample


def check_names(sets: list[ProbeSet]) -> None:
    seen: dict[str, ProbeSet] = {}
    for probe_set in sets:
        earlier = seen.get(probe_set.name)
        if earlier is not None:
            raise InputError(
                f"two probe sets are named {probe_set.name!r} (also "
                f"{earlier.source.get('path')}); rename one file",
                file=str(probe_set.source.get("path")),
                field="--probes",
            )
        seen[probe_set.name] = probe_set


def audit_settings(settings: JudgeSettings) -> JudgeSettings:
    """The probe sets have no adversarial questions; the audit never judges category 5."""
    return dataclasses.replace(settings, include_adversarial=False)


async def run_audit(
    sets: list[ProbeSet],
    settings: JudgeSettings,
    out_dir: Path,
    *,
    batch: bool = False,
    dry_run: bool = False,
    progress: ProgressSink | None = None,
    poll_interval_s: float = 30.0,
    max_wait_s: float = 24 * 3600.0,
    user_cache: bool = False,
) -> PassResult:
    """One judge pass over every probe set, cached in `out_dir/judge_cache.sqlite`."""
    check_names(sets)
    records: list[PredictionRecord] = [r for s in sets for r in s.records]
    judged = audit_settings(settings)
    return await run_pass(
        judge_items(records, judged.include_adversarial),
        judged,
        out_dir / JUDGE_CACHE,
        batch=batch,
        dry_run=dry_run,
        progress=progress,
        poll_interval_s=poll_interval_s,
        job="audit",
        max_wait_s=max_wait_s,
        user_cache=user_cache,
    )


def calls_per_set(sets: list[ProbeSet], result: PassResult) -> dict[str, int]:
    """Calls still to make per probe set (a dry run's breakdown)."""
    owner = {r.key: s.name for s in sets for r in s.records}
    counts = {s.name: 0 for s in sets}
    for spec in result.plan.missing:
        counts[owner[spec.item.key]] += 1
    return counts
