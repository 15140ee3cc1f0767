"""LoCoMo behind the benchmark interface, delegating to the modules that hold its rules:
categories (`categories`), the file (`data.dataset`), its conversations and
evidence (`data.locomo_conversations`), the answer prompt (`benchmarks.answer_prompt`) and the
published baselines (`locoscore.benchmarks.locomo.baselines`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from locoscore.benchmarks.base import Benchmark, KnownFile, QuestionType
from locoscore.benchmarks.locomo.categories import (
    ADVERSARIAL,
    CATEGORY_NAMES,
    GROUPS,
    LOCOMO_COLUMN_ORDER,
)
from locoscore.benchmarks.locomo.data.conversations import locomo_conversations, locomo_questions
from locoscore.benchmarks.locomo.data.dataset import (
    LOCOMO_SHA256,
    LOCOMO_URL,
    Dataset,
    fetch_dataset,
    load_dataset,
)
from locoscore.benchmarks.locomo.data.errata import ERRATA_SHA256, ERRATA_URL, fetch_errata
from locoscore.benchmarks.locomo.data.probes import (
    PROBE_SOURCES,
    PROBES_BASE_URL,
    fetch_probes,
)
from locoscore.benchmarks.locomo.data.readers import FORMATS
from locoscore.data.conversation import Conversation, Question
from locoscore.results.board_row import BoardRow
from locoscore.results.identity import InputIdentity, identity_of_rows
from locoscore.results.layout import PREDICTIONS, REPORT_FILES, RUN_JSON, SCORES, SUMMARY

if TYPE_CHECKING:
    from locoscore.benchmarks.calls import (
        AuditCall,
        CompareCall,
        JudgeCall,
        ReportCall,
        ScoreCall,
        Terminal,
    )
    from locoscore.judge.panel.questions import JudgedQuestion
    from locoscore.judge.prompts import PromptTemplate

_DATASET = KnownFile("locomo10", "locomo10.json", LOCOMO_SHA256, url=LOCOMO_URL)
_AUDIT_REPO = "dial481/locomo-audit"

# `dataset fetch` names: the data file ("locomo" too), the gold errata, the probe sets
FETCH_NAMES = {
    "dataset": _DATASET,
    "locomo": _DATASET,
    "errata": KnownFile(
        "locomo-audit-errors",
        "locomo-audit-errors.json",
        ERRATA_SHA256,
        url=ERRATA_URL,
        note=f"the audited list of wrong gold answers, from {_AUDIT_REPO}",
    ),
    "probes": KnownFile(
        "judge-probes",
        "judge-probes/" + " and ".join(f"{s.name}.json" for s in PROBE_SOURCES),
        ", ".join(s.sha256 for s in PROBE_SOURCES),
        url=PROBES_BASE_URL,
        note=f"the judge-audit probe sets, from {_AUDIT_REPO}",
    ),
}
OPTION_HELP = {
    "--dataset": "locomo10.json; by default $LOCOSCORE_DATASET, else the copy `locoscore "
    "dataset fetch` saved, else the one a results folder's summary.json records",
    "--format": f"one of {', '.join(FORMATS)}; auto-detected when omitted",
    "--prediction-key": "its locomo format's `<KEY>_prediction` fields",
    "--errata": f"{_AUDIT_REPO} errors.json, for the verified-gold view; by default "
    "$LOCOSCORE_ERRATA, else the copy `dataset fetch errata` saved",
    "--protocols": "locomo, mem0, spec",
}


class LoCoMo(Benchmark):
    name = "locomo"
    description = "LoCoMo (Maharana et al., ACL 2024): locomo10.json, 10 conversations"
    types = tuple(
        QuestionType(cid, CATEGORY_NAMES[cid], CATEGORY_NAMES[cid], cid != ADVERSARIAL)
        for cid in LOCOMO_COLUMN_ORDER
    )
    known_files = (_DATASET,)
    fetch_names = FETCH_NAMES
    option_help = OPTION_HELP
    commands = frozenset({"run", "dataset", "score", "judge", "report", "compare", "audit"})
    run_files = (SCORES, SUMMARY, *REPORT_FILES)

    def board_row(self, directory: Path) -> BoardRow:
        return self.board_rows(directory)[0]

    def board_rows(self, directory: Path) -> list[BoardRow]:
        """All questions, and the verified-gold view when the folder records gold errata."""
        from locoscore.benchmarks.locomo.report_parts import REPORT
        from locoscore.generic.board_rows import report_rows

        return report_rows(directory, REPORT, type_word="category")

    def judged_questions(self, directory: Path) -> list[JudgedQuestion]:
        from locoscore.benchmarks.locomo.panel import judged_questions

        return judged_questions(directory)

    def disputed_questions(self, errata: Any) -> frozenset[str]:
        """The errata that change the gold (a wrong citation alone leaves it standing)."""
        if errata is None:
            return frozenset()
        return frozenset(e.key for e in errata.entries if e.score_changing)

    def official_judge_template(self, protocol: str) -> PromptTemplate | None:
        from locoscore.benchmarks.locomo.panel import official_template

        return official_template(protocol)

    def headline_scores(self, directory: Path) -> tuple[str, dict[str, float]] | None:
        from locoscore.benchmarks.locomo.claim import headline_scores

        return headline_scores(directory)

    def unscored_questions(self, directory: Path) -> int | None:
        from locoscore.benchmarks.locomo.claim import unscored_questions

        return unscored_questions(directory)

    def rederive_judgments(self, directory: Path, data: Any, out: Path) -> list[str]:
        """J from judgments.jsonl (`judge.rederive`)."""
        from locoscore.benchmarks.locomo.judge.rederive import rederive_judgments

        return rederive_judgments(directory, out)

    def errata_ceiling(self, directory: Path) -> dict[str, Any] | None:
        from locoscore.benchmarks.locomo.claim import errata_ceiling

        return errata_ceiling(directory)

    # samples keep the strata (and their order) they had: the category ids, `strat-cat`
    sample_stratum = "category"

    def sample_type_key(self, type_id: int) -> int:
        return type_id

    def load(self, path: str | Path | None) -> Dataset:
        return load_dataset(path)

    def data_version(self, data: Dataset) -> str:
        return "locomo10" if data.checksum_ok else "locomo10-modified"

    def type_counts(self, data: Dataset) -> dict[int, int]:
        return data.category_counts()

    def conversations(self, data: Dataset) -> list[Conversation]:
        return locomo_conversations(data)

    def questions(
        self,
        data: Dataset,
        conversations: Sequence[Conversation],
        *,
        include_excluded: bool = True,
    ) -> list[Question]:
        return locomo_questions(data, list(conversations), include_adversarial=include_excluded)

    def score_run(
        self, predictions: Path, data: Dataset, out: Path, run_section: dict[str, Any]
    ) -> dict[str, Any]:
        from locoscore.benchmarks.locomo.data.load import load_predictions
        from locoscore.benchmarks.locomo.scoring.folder import score_into_folder
        from locoscore.benchmarks.locomo.scoring.protocols import PROTOCOLS

        loaded = load_predictions(predictions, "native", dataset=data)
        summary = score_into_folder(loaded, out, list(PROTOCOLS), {"run": run_section})
        return {**summary, "_written": (PREDICTIONS, RUN_JSON, *self.run_files)}

    def fetch(self, name: str, url: str | None, dest: Path | None) -> Path:
        if name == "probes":  # two files, in one folder
            return fetch_probes(url or PROBES_BASE_URL, dest)[0].parent
        if name == "errata":
            return fetch_errata(url or ERRATA_URL, dest)
        return fetch_dataset(url or LOCOMO_URL, dest)

    def build_run_reports(self, directory: Path, errata: Any | None = None) -> None:
        """report.md, report.html and scores.csv, the statistics section of summary.json."""
        from locoscore.benchmarks.locomo.report_parts import build_reports

        build_reports(directory, self, errata=errata)

    def print_run_scores(self, summary: dict[str, Any], t: Terminal) -> None:
        """The lexical protocols' table, then their signatures."""
        from locoscore.benchmarks.locomo.report_parts import LEXICAL_CAPTION
        from locoscore.generic.folder_terminal import print_lexical

        print_lexical(t.out, summary["lexical"], GROUPS, LEXICAL_CAPTION)

    def evidence_metric(self) -> tuple[str, Callable[[str, Any, int], float]]:
        """The official LoCoMo F1 (`measures.f1_by_evidence`, as `f1_locomo`)."""
        from locoscore.benchmarks.locomo.scoring.protocols import get_protocol

        return "f1_locomo", get_protocol("locomo").metrics["f1"]

    def records_identity(self, name: str, records: list[dict[str, Any]]) -> InputIdentity:
        """LoCoMo folders record their rows' key, gold and prediction (`score` and `judge`
        read them joined to the dataset)."""
        return identity_of_rows(name, records)

    def errata(self, given: Path | None, data: Dataset) -> Any | None:
        from locoscore.benchmarks.locomo.data.errata import errata_for

        return errata_for(given, data)

    def published(self) -> tuple[Any, ...]:
        from locoscore.benchmarks.locomo.baselines import ALL_ROWS

        return tuple(ALL_ROWS)

    # -- commands: the judge pass over joined prediction records, the probe-file audit,
    # the report and comparison through the shared machinery, LoCoMo's parts declared
    # (`parts.py`, `report_parts.py`)
    def judge_command(self, call: JudgeCall, terminal: Terminal) -> bool:
        """The shared records judge (`benchmarks.records_judge`) with LoCoMo's parts: the
        peer-format readers joined to the dataset, category 5 only on request, its judge
        items, its categories, and the full report (verified-gold line) rebuilt after."""
        # imported here, not at the top: `locoscore --help` stays free of NumPy and NLTK
        from locoscore.benchmarks.locomo.judge.api import judge_pass
        from locoscore.benchmarks.locomo.judge.from_records import judged_records
        from locoscore.benchmarks.records_judge import RecordsJudge, judge_records_command

        parts = RecordsJudge(
            _load_records, judged_records, judge_pass, GROUPS, functools.partial(_rebuild, self)
        )
        return judge_records_command(self, parts, call, terminal)

    def check_audit_inputs(self, predictions: Path | None, probes: list[Path] | None) -> None:
        """LoCoMo's audit takes probe files and your predictions beside the gold."""

    def audit_command(self, call: AuditCall, terminal: Terminal) -> bool:
        from locoscore.benchmarks.locomo.audit_command import audit_command

        return audit_command(self, call, terminal)

    def report(self, directory: Path) -> list[Path]:
        """The folder's reports rebuilt as they stand (no errata given: the recorded list)."""
        from locoscore.benchmarks.locomo.report_parts import build_reports

        return build_reports(directory, self).paths

    def report_command(self, call: ReportCall, terminal: Terminal) -> bool:
        from locoscore.benchmarks.locomo.folder_commands import report_command

        return report_command(self, call, terminal)

    def compare_command(self, call: CompareCall, terminal: Terminal) -> bool:
        from locoscore.benchmarks.locomo.folder_commands import compare_command

        return compare_command(self, call, terminal)

    def score_command(self, call: ScoreCall, terminal: Terminal) -> bool:
        from locoscore.benchmarks.locomo.folder_commands import score_command

        return score_command(self, call, terminal)


def _load_records(call: JudgeCall) -> Any:
    from locoscore.benchmarks.locomo.data.load import load_predictions

    return load_predictions(
        call.predictions,
        call.fmt,
        prediction_key=call.prediction_key,
        dataset=call.dataset,
        strict=call.strict,
    )


def _rebuild(bench: Benchmark, out: Path, errata: Any) -> str | None:
    from locoscore.benchmarks.locomo.report_parts import build_reports
    from locoscore.generic.errata_view import verified_gold_line

    return verified_gold_line(build_reports(out, bench, errata=errata).analysis)


LOCOMO = LoCoMo()
