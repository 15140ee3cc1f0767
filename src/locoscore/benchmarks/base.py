"""What every benchmark provides, as one small object (the registry is in `__init__`).

The harness, the judge, the reports and `compare` never test a benchmark's name: they ask its
object. A benchmark names its question types (an int id per type, as written in the outputs'
`category` column, with a display name and an order), which types an overall leaves out, how
its data file is loaded and recognised (sha256), how the file becomes benchmark-neutral
conversations and questions, the signature part that names the file, its default answer
prompt and its judge rules per type, and its published baselines.

A new benchmark declares only small parts: its `types`, its data (`data`, inline JSON-like
values, or a file of the same shape; see `generic.data`), a `metric` and `judge_rules`
(`generic.parts`). Every other hook has a generic default built from them (`generic.*`):
scores, the judge pass, the report, the board row and the comparison. LoCoMo, LongMemEval
and BEAM override the hooks with their own rules.
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from locoscore.benchmarks import calls
from locoscore.benchmarks import commands as default_commands
from locoscore.data.conversation import Conversation, Question
from locoscore.generic.parts import BlindBaseline
from locoscore.results.identity import InputIdentity, answers_identity, submitted_pairs
from locoscore.results.layout import PREDICTIONS, RUN_JSON, SCORES, SUMMARY
from locoscore.results.rederived import answers_source, carry_judgments, row_id, run_section

if TYPE_CHECKING:
    from locoscore.benchmarks.answer_prompt import AnswerPrompt
    from locoscore.data.sample import QuestionSample, SampleSpec
    from locoscore.generic.parts import JudgeRules, Metric
    from locoscore.judge.panel.questions import JudgedQuestion
    from locoscore.judge.prompts import PromptTemplate
    from locoscore.results.board_row import BoardRow


@dataclass(frozen=True)
class QuestionType:
    """One question type. `id` is what outputs carry; `key` is the benchmark's own name."""

    id: int
    key: str
    name: str
    in_overall: bool = True


@dataclass(frozen=True)
class KnownFile:
    """A released data file, recognised by its sha256; `version` goes into signatures."""

    version: str
    filename: str
    sha256: str
    size: int | None = None
    url: str | None = None  # pinned download, when `dataset fetch` offers it
    note: str | None = None  # what `dataset fetch` says of it (default: nothing beyond its name)


class BenchmarkData(Protocol):
    """A loaded data file: where it came from and what it is."""

    @property
    def path(self) -> Path: ...

    @property
    def sha256(self) -> str: ...


class Benchmark(ABC):
    name: str
    description: str
    types: tuple[QuestionType, ...]  # in display order
    known_files: tuple[KnownFile, ...] = ()
    # The commands that can take this benchmark's data and outputs.
    commands: frozenset[str] = frozenset({"run", "dataset", "judge", "report", "compare"})
    # The declared parts the generic hooks read (a benchmark overriding them needs none).
    data: Mapping[str, Any] | None = None  # inline data (`generic.data` describes the shape)
    metric: Metric | None = None
    judge_rules: JudgeRules | None = None
    # The judge protocols `judge --protocol` takes for it (help text lists them all).
    judge_protocols: tuple[str, ...] = ("rubric", "binary")
    # Its judge takes the user's template for one question type (`judge --type-template`).
    takes_type_templates = False
    # What `run` writes beside predictions.jsonl and run.json (its score_run's files).
    run_files: tuple[str, ...] = (SCORES, SUMMARY)
    # Where a third-party benchmark came from (`python:module:NAME`), set when it is loaded:
    # its folders record it so that later commands find it again.
    source: str | None = None
    # What the help of an option only some benchmarks read says of this one (`--dataset`,
    # `--format`, `--prediction-key`, `--errata`): the CLI composes each option's help from
    # every benchmark's note, so no option speaks of one benchmark by name.
    option_help: Mapping[str, str] = {}
    answer_prompt_name = "locoscore-answer-v1"
    # The answer step's max_tokens: part of the benchmark (its golds set how long a full
    # answer runs), so it is in every run's signature and run.json.
    answer_max_tokens = 128
    # The answer step's temperature: part of the benchmark like its max_tokens (an official
    # profile may fix another).
    answer_temperature = 0.0
    # The profiles `run --protocol` takes (none: the benchmark has only its default).
    run_protocols: tuple[str, ...] = ()

    def for_protocol(self, protocol: str | None) -> Benchmark:
        """The benchmark as `run --protocol` asks for it (None: itself, the default
        profile); a protocol it does not take is refused in one line."""
        if protocol is None:
            return self
        from locoscore.errors import InputError

        takes = ", ".join(self.run_protocols) or "none: it has only its default"
        raise InputError(
            f"--benchmark {self.name} takes no run protocol {protocol!r} (it takes: {takes})",
            field="--protocol",
        )

    def require(self, command: str) -> None:
        """Refuse, as bad input, a command this benchmark cannot serve yet."""
        if command not in self.commands:
            from locoscore.errors import InputError

            able = ", ".join(sorted(self.commands))
            raise InputError(
                f"`{command}` does not take --benchmark {self.name} (it takes: {able})",
                field="--benchmark",
            )

    # `locoscore dataset fetch <name>`: the released files it can download (two names of
    # one file: the later is an alias, taken but not listed)
    fetch_names: Mapping[str, KnownFile] = {}

    def fetch(self, name: str, url: str | None, dest: Path | None) -> Path:
        """Download `fetch_names[name]` (from `url`, else its pinned one) into `dest`, else
        the user cache, checked against its sha256: the file or folder written."""
        raise NotImplementedError

    # -- question types --------------------------------------------------------------
    @property
    def type_names(self) -> Mapping[int, str]:
        return {t.id: t.name for t in self.types}

    @property
    def type_order(self) -> tuple[int, ...]:
        return tuple(t.id for t in self.types)

    @property
    def excluded_from_overall(self) -> frozenset[int]:
        return frozenset(t.id for t in self.types if not t.in_overall)

    def type_name(self, type_id: int) -> str:
        return self.type_names.get(type_id, str(type_id))

    # -- samples (`--limit`) ------------------------------------------------------------
    # What a sample's strata are called (in its `sample:` signature part and run.json): the
    # benchmark's own word for its question types.
    sample_stratum = "type"

    def sample_type_key(self, type_id: int) -> Hashable:
        """The stratum a question of type `type_id` is drawn in: its type's own key."""
        return next((t.key for t in self.types if t.id == type_id), str(type_id))

    def draw_sample(
        self,
        request: SampleSpec | QuestionSample | None,
        questions: Iterable[tuple[str, int]],
    ) -> QuestionSample | None:
        """The one sample draw of `run`, `judge` and `audit`: `questions` are (question id,
        type id) pairs, stratified by the benchmark's types. A sample already drawn (a run's,
        read from its run.json) is kept as it is; None asks for every question."""
        from locoscore.data.sample import QuestionSample, draw_questions

        if request is None or isinstance(request, QuestionSample):
            return request
        return draw_questions(
            request, questions, type_key=self.sample_type_key, stratum_name=self.sample_stratum
        )

    # -- data ------------------------------------------------------------------------
    def known_file(self, sha256: str) -> KnownFile | None:
        return next((f for f in self.known_files if f.sha256 == sha256), None)

    def load(self, path: str | Path | None) -> Any:
        """The data file (explicit path, else the benchmark's default), validated. Default:
        a file of `generic.data`'s shape, else the inline `data`."""
        import inspect

        from locoscore.generic.data import load_declared

        keys = {t.key: t.id for t in self.types}
        return load_declared(path, self.data, Path(inspect.getfile(type(self))), keys)

    def data_version(self, data: Any) -> str:
        """The file's name in signatures: a released file's version, else `<name>-unknown`
        (`<name>-inline` for the data the benchmark's module holds)."""
        known = self.known_file(data.sha256)
        if known is not None:
            return known.version
        return f"{self.name}-inline" if Path(data.path).suffix == ".py" else f"{self.name}-unknown"

    def signature_part(self, data: Any) -> str:
        return f"bench:{self.data_version(data)}@{data.sha256[:12]}"

    def describe_data(self, data: Any) -> dict[str, Any]:
        return {"path": str(data.path), "sha256": data.sha256, "version": self.data_version(data)}

    def type_counts(self, data: Any) -> dict[int, int]:
        """Questions per type id in the file."""
        counts = dict.fromkeys(self.type_order, 0)
        for question in self.questions(data, self.conversations(data)):
            counts[question.category] = counts.get(question.category, 0) + 1
        return counts

    def conversations(self, data: Any) -> list[Conversation]:
        """What systems ingest, benchmark-neutral; ids opaque where the benchmark's leak."""
        return list(data.conversations)

    def questions(
        self, data: Any, conversations: Sequence[Conversation], *, include_excluded: bool = True
    ) -> list[Question]:
        """The questions of `conversations`, in dataset order (`include_excluded`: with the
        types left out of the overall)."""
        ids = {c.conversation_id for c in conversations}
        left_out = frozenset() if include_excluded else self.excluded_from_overall
        return [
            q
            for q in self.all_questions(data)
            if q.conversation_id in ids and q.category not in left_out
        ]

    def all_questions(self, data: Any) -> Sequence[Question]:
        """Every question of the data as a `Question`, in dataset order: what `questions`
        picks from (default: the data's own `questions`)."""
        return cast(Sequence[Question], data.questions)

    def errata(self, given: Path | None, data: Any) -> Any | None:
        """The gold errata list (`--errata`, else the benchmark's default) that gives a run's
        reports their verified-gold view; None for a benchmark without one. A bad list is
        refused here, before any work."""
        return None

    def gold_evidence(self, data: Any, question: Question) -> tuple[str, ...] | None:
        """The turns that hold the question's answer, as dia ids systems see: what
        `--system gold-evidence` returns for it. None: the benchmark names no evidence for
        it (a run where no question has any refuses that system). Default: the question's
        own `evidence`."""
        return question.evidence or None

    def blind_baselines(
        self, data: Any, questions: Sequence[Question]
    ) -> tuple[BlindBaseline, ...]:
        """Floors of the benchmark's own, computed without a model over `questions` (a
        multiple-choice benchmark's always-longest option); none by default."""
        return ()

    # -- the claim card (`claim/`): what a results folder's numbers can be believed for ----
    def headline_scores(self, directory: Path) -> tuple[str, dict[str, float]] | None:
        """(label, question id -> headline score 0-100) of a results folder: what the card
        reports and tests against a floor, question by question. Default: the board row's
        headline; None when the folder is not scored yet."""
        row = self.board_row(directory)
        if row is None or not row.metrics:
            return None
        return row.metrics[0].label, dict(row.scores)

    def unscored_questions(self, directory: Path) -> int | None:
        """Questions of a judged folder the judge left without a verdict (every run of them
        failed). Default: the judge section's `unscored` count."""
        from locoscore.results.folder import load_summary

        judge = load_summary(directory).get("judge")
        count = judge.get("unscored") if isinstance(judge, dict) else None
        return count if isinstance(count, int) else None

    def rederive(self, directory: Path, data: Any, out: Path) -> list[str]:
        """Recompute into `out` (an empty folder) the scores.jsonl and summary.json of a
        results folder from its own records and `data`, with this benchmark's scoring and no
        model call: what `verify` compares the folder's numbers with. The answers are the
        folder's predictions.jsonl; for answers scored as a file, the file summary.json
        names when it is at hand with its sha256, else the rows of its scores.jsonl; a
        benchmark without `score` has only its judge's numbers to recompute there. Returns
        what could not be re-derived (empty: everything). Default: the
        answers through `score_run` and the blind floors; the judge's numbers through
        `rederive_judgments`; the reports through `build_run_reports`."""
        import shutil

        from locoscore._io import read_jsonl
        from locoscore.generic.floors import record_floors

        if not (directory / PREDICTIONS).is_file() and "score" not in self.commands:
            # answers judged as a file, by a benchmark that scores nothing but the verdicts
            return self.rederive_judgments(directory, data, out)
        shutil.copyfile(answers_source(directory), out / PREDICTIONS)
        run_file = directory / RUN_JSON
        if run_file.is_file():
            shutil.copyfile(run_file, out / RUN_JSON)
        summary = self.score_run(out / PREDICTIONS, data, out, run_section(directory))
        asked = {row_id(r) for r in read_jsonl(out / PREDICTIONS)}
        every = self.questions(data, self.conversations(data))
        chosen = [q for q in every if q.question_id in asked]
        record_floors(out, summary, self, data, chosen)
        left = self.rederive_judgments(directory, data, out)
        self.build_run_reports(out)
        return left

    def rederive_judgments(self, directory: Path, data: Any, out: Path) -> list[str]:
        """The judge's numbers of a judged folder (summary.json `judge`, the judge's fields
        of scores.jsonl) recomputed into `out` from its judgments.jsonl; returns what could
        not be (empty: everything). Default: the folder's own judge numbers carried over
        as they stand, named as not re-derived."""
        return carry_judgments(directory, out)

    def question_total(self, data: Any, *, include_excluded: bool = True) -> int:
        """How many questions the data file holds (a folder with fewer is a subset)."""
        conversations = self.conversations(data)
        return len(self.questions(data, conversations, include_excluded=include_excluded))

    def errata_ceiling(self, directory: Path) -> dict[str, Any] | None:
        """The best score a perfect system can get against the gold as written, on the
        folder's questions, when the benchmark has a gold errata list: `{"ceiling": 0-100,
        "n", "gold_wrong", "source"}`, or `{"ceiling": None, "how": ...}` when the list is
        not at hand. None: the benchmark has no errata."""
        return None

    def published(self) -> tuple[Any, ...]:
        """Published numbers, each with its protocol and source (listed, never ranked
        against a row of another protocol)."""
        return ()

    # -- answer step and judge -------------------------------------------------------
    def default_answer_prompt_text(self) -> str:
        """The held-constant answer prompt ({question}, {context}, optional {question_date})."""
        from locoscore.benchmarks.answer_prompt import DEFAULT_ANSWER_PROMPT

        return DEFAULT_ANSWER_PROMPT

    def default_answer_prompt(self) -> AnswerPrompt:
        from locoscore.benchmarks.answer_prompt import AnswerPrompt

        return AnswerPrompt(self.default_answer_prompt_text(), name=self.answer_prompt_name)

    def answer_prompt(self, data: Any) -> AnswerPrompt:
        """The answer prompt a run on `data` uses without `--answer-prompt` (default: the
        held-constant one; an official profile may read its own from the data's files)."""
        return self.default_answer_prompt()

    def summary_fields(self) -> dict[str, Any]:
        """What summary.json says of the benchmark: its name and, for a third-party one, the
        spec that loads it again."""
        return {
            "benchmark": self.name,
            **({"benchmark_source": self.source} if self.source else {}),
        }

    def score_run(
        self, predictions: Path, data: Any, out: Path, run_section: dict[str, Any]
    ) -> dict[str, Any]:
        """A finished run's scores into `out`; the summary, with `_written` naming the files.
        Default: the declared metric per question (`generic.scoring`)."""
        from locoscore.generic.scoring import score_run

        fields = {**self.summary_fields(), "data": self.describe_data(data)}
        summary = score_run(predictions, self.metric, self.type_names, fields, out, run_section)
        return {**summary, "_written": (PREDICTIONS, RUN_JSON, *self.run_files)}

    def build_run_reports(self, directory: Path, errata: Any | None = None) -> None:
        """The reports a run's folder holds beside its scores (in `run_files`), built once
        `score_run` has written them: after `run`, a shard's run and a merge. `errata`: the
        run's gold errata list (None: what the folder records). Default: the claim card
        (summary.json `claim`), and the report when the folder has one."""
        default_commands.refresh_claim(self, directory)

    def print_run_scores(self, summary: dict[str, Any], t: calls.Terminal) -> None:
        """What `run` prints of the scores `score_run` summarised; default nothing."""
        return None

    def evidence_metric(self) -> tuple[str, Callable[[str, Any, int], float]] | None:
        """The per-question metric a run splits by how much of each question's evidence
        retrieval found (run.json's `measures.f1_by_evidence`): its name there, and the
        function (prediction, gold, type id) -> 0..1. None (default): no split."""
        return None

    def records_identity(self, name: str, records: list[dict[str, Any]]) -> InputIdentity:
        """A run's prediction lines as the folder guard records them: the (question id,
        answer) pairs of the answered questions, as a judge of the same file reads them."""
        return answers_identity(name, submitted_pairs(records))

    def run_fingerprint(self, records: list[dict[str, Any]]) -> str:
        """The fingerprint a run of this benchmark records for its prediction lines."""
        return self.records_identity("", records).fingerprint

    # Probe checks a run on this benchmark needs beyond the quick ones (LongMemEval resets
    # the system between questions and scores retrieval by the turns items name).
    probe_checks: tuple[str, ...] = ()

    # -- commands: what the CLI calls. A hook takes the command's call and the terminal and
    # returns True when the command failed after writing its outputs; the defaults are
    # `benchmarks.commands`' (LoCoMo overrides them).
    judge_command = default_commands.judge_command
    check_audit_inputs = default_commands.refuse_audit_files
    audit_command = default_commands.audit_command
    report_command = default_commands.report_command
    compare_command = default_commands.compare_command

    def score_command(self, call: calls.ScoreCall, terminal: calls.Terminal) -> bool:
        self.require("score")
        raise NotImplementedError

    # The report and comparison are written through `report` and `compare` (default: from
    # the declared parts, `generic.folder_view`).
    def report(self, directory: Path) -> list[Path]:
        from locoscore.claim.refresh import write_claim
        from locoscore.generic.folder_view import write_report

        write_claim(directory, self)  # the report's first box
        return write_report(directory, self.description)

    def compare(self, dir_a: Path, dir_b: Path, out: Path) -> dict[str, Any]:
        from locoscore.generic.folder_view import compare_folders

        return compare_folders(dir_a, dir_b, out)

    def board_row(self, directory: Path) -> BoardRow:
        """A results folder as `locoscore board` shows it: its headline and other metrics,
        per type, answered and failed, per-question scores for the paired test."""
        from locoscore.generic.board_rows import board_row

        row: BoardRow = board_row(directory)
        return row

    def board_rows(self, directory: Path) -> list[BoardRow]:
        """Every row the board shows for a folder, one per view of its questions (default:
        the one `board_row`, over all of them)."""
        return [self.board_row(directory)]

    async def audit(
        self, data: Any, settings: Any, out: Path, **options: Any
    ) -> tuple[Any, dict[str, Any] | None]:
        """The probe sets judged into `out`: the pass and the audit document. With
        `options["sample"]` (`--limit`), one sample of the questions, stratified by type,
        cuts every set; the document carries it and its signature the `sample:` part."""
        raise NotImplementedError

    # The judge runs through `judge` (default: the declared `judge_rules`, `generic.judging`).
    async def judge(
        self, data: Any, answers: Path, settings: Any, out: Path, **options: Any
    ) -> tuple[Any, dict[str, Any] | None]:
        """Judge an answers file into `out`: the pass and the summary's judge section.

        `options["sample"]` (a `data.sample.SampleSpec`, or None) is `--limit`: the hook
        draws it over the questions it would judge, stratified by its question types, and
        the section carries it (`sample`, and the `sample:` part of its signature).

        `options["claim"]` (a callable taking the file's `InputIdentity`, or None) is the
        folder guard: the hook calls it once the answers are read, before anything is
        written; it refuses a folder of other answers (or, with `--replace`, empties it).
        The section records the identity as its `input`."""

        from locoscore.errors import InputError
        from locoscore.generic.judging import JudgeTask, judge_answers

        if self.judge_rules is None:
            raise InputError(f"{self.name} declares no judge rules", field="--benchmark")
        task = JudgeTask(
            self.name,
            self.summary_fields(),
            self.judge_rules,
            self.questions(data, self.conversations(data)),
            {t.id: t.key for t in self.types},
            dict(self.type_names),
            self.describe_data(data),
            self.draw_sample,
        )
        return await judge_answers(task, answers, settings, out, **options)

    # -- judge panel (`judge --panel`) --------------------------------------------------
    def judged_questions(self, directory: Path) -> list[JudgedQuestion]:
        """A judged folder's questions (id, type name, the judge's score 0-100), which a
        judge panel compares across its judges. Default: each question's score in the
        folder's board row (`board_row`), else `j` of scores.jsonl; the type from scores.jsonl."""
        from locoscore.judge.panel.questions import generic_judged_questions

        return generic_judged_questions(directory, self.board_row(directory))

    def disputed_questions(self, errata: Any) -> frozenset[str]:
        """The questions whose gold answer the errata (`errata()`'s list) dispute, as
        `judged_questions` names them: a loss there may be the benchmark's. None by default."""
        return frozenset()

    def official_judge_template(self, protocol: str) -> PromptTemplate | None:
        """The panel's `official` variant: the benchmark's published grading rules (in our
        own words, or read from the official files), for `protocol`. None: no such variant;
        `no_official_judge` says why."""
        return None

    # Why a panel's `official` judge is refused for this benchmark (when
    # `official_judge_template` gives none), in words true of it.
    no_official_judge = "it declares no official judge prompt"

    # What the default `judge` and `audit` commands print: lines
    # built from the summary section (or audit document) it returned; a dry run's lines
    # (None: the shared estimate of a single pass). A section's `error` fails the command.
    def judge_lines(self, section: dict[str, Any], out: Path) -> list[str]:
        from locoscore.generic.judging import judge_lines

        return judge_lines(section, out)

    def audit_lines(self, document: dict[str, Any], out: Path) -> list[str]:
        return []

    def dry_run_lines(self, result: Any) -> list[str] | None:
        return None
