"""What a judge panel reads before its first call, and what it records in every judge's folder.

Read first, so that a bad input costs nothing: the data file (the panel needs it for the
errata and the loss causes), the answers file, the run that made the answers (its run.json
beside them, trusted only when it records these very answers), and the `--gold-evidence`
folder. A panel whose answers were made on another data file than `--dataset` is refused.

Each `judges/<name>/` folder is then bound to what it judged: summary.json gets `dataset`
(path, sha256), `run` (the answer step of the run that made the answers: system, answer
provider, model and prompt, data file, sample, conversations) and `answers` (the file, its
sha256, how many questions and which: a sha256 over their sorted ids). The claim card reads
them as it reads a run folder's, so `verify judges/<name>` knows the data file (a floor on
another data file is refused), the selection and the answer model (a judge that is the
answer model is named). The panel folder itself gets the same `dataset`, `run` and `answers`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from locoscore._io import sha256_file, sha256_text
from locoscore.errors import InputError
from locoscore.results.layout import PANEL_JSON, PREDICTIONS, RUN_JSON, SUMMARY

if TYPE_CHECKING:
    from locoscore.benchmarks.base import Benchmark
    from locoscore.benchmarks.calls import JudgeCall
    from locoscore.judge.panel.losses import AnswerFacts

# run.json's fields that say what made the answers (the rest: spend, timing, ingestion)
RUN_IDENTITY = (
    "signature", "system", "top_k", "context_budget", "answer", "tokenizer", "benchmark",
    "dataset", "conversations", "questions", "include_adversarial", "sample", "shard",
)  # fmt: skip
# the system of a gold-evidence run (`--system gold-evidence`): every question's evidence
GOLD_EVIDENCE_SYSTEM = "gold-evidence"


@dataclass(frozen=True)
class PanelInputs:
    data: Any  # the benchmark's data file, loaded
    dataset: dict[str, Any]  # path, sha256, version
    errata: Any
    facts: dict[str, AnswerFacts]  # what the answers file says of each answer
    answers: dict[str, Any]  # the answers file: path, sha256, records
    run: dict[str, Any] | None  # the answers' run (RUN_IDENTITY); None: not a run's own file
    gold_right: dict[str, bool] | None  # --gold-evidence: right under every judge there


def _read_run(folder: Path) -> dict[str, Any] | None:
    """The folder's run.json (None: none, or not a JSON object)."""
    try:
        run = json.loads((folder / RUN_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return run if isinstance(run, dict) else None


def answers_run(bench: Benchmark, predictions: Path) -> dict[str, Any] | None:
    """The run that made `predictions` (RUN_IDENTITY of the run.json beside them), when that
    run.json records these very answers (its fingerprint); else None."""
    from locoscore._io import read_jsonl

    run = _read_run(predictions.parent)
    written = None if run is None else run.get("predictions")
    if run is None or not isinstance(written, dict):
        return None
    try:
        rows = read_jsonl(predictions)
    except (OSError, ValueError):
        return None  # the judge reading the file reports it
    if bench.run_fingerprint(rows) != written.get("fingerprint"):
        return None
    return {k: run[k] for k in RUN_IDENTITY if k in run}


def read_panel_inputs(bench: Benchmark, call: JudgeCall, gold_evidence: Path | None) -> PanelInputs:
    """Every input of the panel, read and checked before any judge makes a call."""
    from locoscore.judge.panel.losses import read_answer_facts

    predictions = call.predictions / PREDICTIONS if call.predictions.is_dir() else call.predictions
    if not predictions.is_file():
        raise InputError("not a file", file=str(predictions))
    data = bench.load(call.dataset)  # no data file: refused here, not after every judge
    dataset = bench.describe_data(data)
    run = answers_run(bench, predictions)
    made_on = (run or {}).get("dataset") or {}
    if made_on.get("sha256") and made_on["sha256"] != dataset["sha256"]:
        raise InputError(
            f"the answers were made on another data file (sha256 {str(made_on['sha256'])[:12]}"
            f", {made_on.get('path')}) than the panel's (sha256 {dataset['sha256'][:12]}, "
            f"{dataset['path']}): pass the run's file as --dataset",
            file=str(predictions.parent / RUN_JSON),
            field="dataset",
        )
    errata = bench.errata(call.errata, data)
    facts = read_answer_facts(predictions)
    answers = {"path": str(predictions), "sha256": sha256_file(predictions), "records": len(facts)}
    gold = None
    if gold_evidence is not None:
        gold = read_gold_right(bench, gold_evidence, dataset, run)
    return PanelInputs(data, dataset, errata, facts, answers, run, gold)


def _folder_run(bench: Benchmark, folder: Path) -> dict[str, Any] | None:
    """The run a judged folder's answers came from: its run.json (a judged run folder), else
    the `run` a panel recorded in its summary.json (a panel folder, or one judge's)."""
    run = _read_run(folder)
    if run is not None:
        return run
    try:
        summary = json.loads((folder / SUMMARY).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    recorded = summary.get("run") if isinstance(summary, dict) else None
    return recorded if isinstance(recorded, dict) else None


def _selection(run: dict[str, Any]) -> dict[str, Any]:
    """Which questions a run asked: its sample's ids, its conversations, how many."""
    sample = run.get("sample")
    ids = sample.get("question_ids") if isinstance(sample, dict) else None
    conversations = run.get("conversations")
    return {
        "sample": sorted(str(q) for q in ids) if isinstance(ids, list) else None,
        "conversations": sorted(map(str, conversations)) if isinstance(conversations, list)
        else None,
        "questions": run.get("questions"),
        "include_adversarial": run.get("include_adversarial"),
    }  # fmt: skip


def read_gold_right(
    bench: Benchmark,
    folder: Path,
    dataset: dict[str, Any],
    run: dict[str, Any] | None,
) -> dict[str, bool]:
    """question -> right in the gold-evidence run: under every judge of its panel (a panel
    folder), else under its one judge. The folder must be a judged `gold-evidence` run of the
    panel's data file and question selection (else bad input naming the difference)."""

    def bad(reason: str) -> InputError:
        return InputError(reason, file=str(folder), field="--gold-evidence")

    if not folder.is_dir():
        raise bad("not a folder")
    theirs = _folder_run(bench, folder)
    system = ((theirs or {}).get("system") or {}).get("name")
    if system != GOLD_EVIDENCE_SYSTEM:
        said = "records no run" if theirs is None else f"is a run of {system!r}"
        raise bad(f"{said}, not of --system {GOLD_EVIDENCE_SYSTEM}")
    their_sha = ((theirs or {}).get("dataset") or {}).get("sha256")
    if their_sha != dataset["sha256"]:
        raise bad(
            f"another data file (sha256 {str(their_sha)[:12]}, the panel's "
            f"{dataset['sha256'][:12]})"
        )
    if run is None:  # fail closed: which questions the answers are of is not known
        raise bad(
            "the panel's answers are not a run's own predictions (no run.json beside them "
            "records them): their question selection cannot be checked against it"
        )
    mine, other = _selection(run), _selection(theirs or {})
    differs = next((k for k in mine if mine[k] != other[k]), None)
    if differs is not None:
        raise bad(
            f"another question selection ({differs}: {_short(other[differs])}, the "
            f"panel's answers: {_short(mine[differs])})"
        )
    if (folder / PANEL_JSON).is_file():
        try:
            scores = json.loads((folder / PANEL_JSON).read_text(encoding="utf-8"))["scores"]
        except (OSError, ValueError, KeyError, TypeError):
            raise InputError("no per-judge scores", file=str(folder / PANEL_JSON)) from None
        by_question: dict[str, list[bool]] = {}
        for per_judge in scores.values():
            for qid, score in per_judge.items():
                if isinstance(score, int | float):
                    by_question.setdefault(qid, []).append(score >= 50)
        return {q: all(v) for q, v in by_question.items()}
    right = {q.question_id: q.verdict for q in bench.judged_questions(folder)}
    return {q: v for q, v in right.items() if v is not None}


def _short(value: Any) -> str:
    if isinstance(value, list):
        return f"{len(value)} ({', '.join(value[:2])}{', ...' if len(value) > 2 else ''})"
    return str(value)


def ids_sha256(ids: list[str]) -> str:
    """Which questions, as one hash: sha256 over the sorted ids, one per line."""
    return sha256_text("\n".join(sorted(ids)))


def provenance(inputs: PanelInputs, judged: list[str] | None = None) -> dict[str, Any]:
    """summary.json's `dataset`, `run` and `answers` for a judge's folder (`judged`: the
    questions it judged) or the panel's (None: the answers' questions)."""
    ids = list(inputs.facts) if judged is None else judged
    return {
        "dataset": {k: inputs.dataset.get(k) for k in ("path", "sha256", "version")},
        "run": inputs.run,
        "answers": {
            **inputs.answers,
            "questions": len(ids),
            "question_ids_sha256": ids_sha256(ids),
        },
    }


def record_provenance(folder: Path, recorded: dict[str, Any]) -> None:
    """Add the provenance to the folder's summary.json (atomically), replacing any older."""
    from locoscore._io import write_json_atomic
    from locoscore.results.folder import load_summary

    summary = load_summary(folder)
    summary.update({k: v for k, v in recorded.items() if v is not None})
    if recorded.get("run") is None:
        summary.pop("run", None)  # answers not a run's own: no answer step to claim
    write_json_atomic(folder / SUMMARY, summary)
