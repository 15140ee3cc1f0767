"""What every benchmark provides, as one small object (the registry is in `__init__`).

The harness, the judge, the reports and `compare` never test a benchmark's name: they ask its
object. A benchmark names its question types (an int id per type, as written in the outputs'
`category` column, with a display name and an order), which types an overall leaves out, how
its data file is loaded and recognised (sha256), how the file becomes benchmark-neutral
conversations and questions, the signature part that names the file, its default answer
prompt and its judge rules per type, and its published baselines.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from locoscore.data.conversation import Conversation, Question
from locoscore.results.identity import InputIdentity, answers_identity, submitted_pairs

if TYPE_CHECKING:
    from locoscore.benchmarks.answer_prompt import AnswerPrompt
    from locoscore.benchmarks.board_row import BoardRow
    from locoscore.data.sample import QuestionSample, SampleSpec


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
    commands: frozenset[str] = frozenset({"run", "dataset"})
    has_errata = False  # a gold errata list (`--errata`) applies to its questions
    scores_lexically = False  # token-F1 protocols apply (LoCoMo's short gold answers)
    answer_prompt_name = "locoscore-answer-v1"
    # The answer step's max_tokens: part of the benchmark (its golds set how long a full
    # answer runs), so it is in every run's signature and run.json.
    answer_max_tokens = 128

    def require(self, command: str) -> None:
        """Refuse, as bad input, a command this benchmark cannot serve yet."""
        if command not in self.commands:
            from locoscore.errors import InputError

            able = ", ".join(sorted(self.commands))
            raise InputError(
                f"`{command}` does not take --benchmark {self.name} (it takes: {able})",
                field="--benchmark",
            )

    # `locoscore dataset fetch <name>`: the released files it can download
    fetch_names: Mapping[str, KnownFile] = {}

    def fetch(self, name: str, url: str | None, dest: Path | None) -> Path:
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

    @abstractmethod
    def load(self, path: str | Path | None) -> Any:
        """The data file (explicit path, else the benchmark's default), validated."""

    @abstractmethod
    def data_version(self, data: Any) -> str:
        """The file's name in signatures: a released file's version, else `<name>-unknown`."""

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

    @abstractmethod
    def conversations(self, data: Any) -> list[Conversation]:
        """What systems ingest, benchmark-neutral; ids opaque where the benchmark's leak."""

    @abstractmethod
    def questions(
        self, data: Any, conversations: Sequence[Conversation], *, include_excluded: bool = True
    ) -> list[Question]:
        """The questions of `conversations`, in dataset order."""

    def published(self) -> tuple[Any, ...]:
        """Published numbers, each with its protocol and source (listed, never ranked
        against a row of another protocol)."""
        return ()

    # -- answer step and judge -------------------------------------------------------
    @abstractmethod
    def default_answer_prompt_text(self) -> str:
        """The held-constant answer prompt ({question}, {context}, optional {question_date})."""

    def default_answer_prompt(self) -> AnswerPrompt:
        from locoscore.benchmarks.answer_prompt import AnswerPrompt

        return AnswerPrompt(self.default_answer_prompt_text(), name=self.answer_prompt_name)

    @abstractmethod
    def score_run(
        self, predictions: Path, data: Any, out: Path, run_section: dict[str, Any]
    ) -> dict[str, Any]:
        """A finished run's scores into `out`; the summary, with `_written` naming the files."""

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

    # A benchmark with its own report and comparison writes them through `report` and
    # `compare`; the others use the generic (LoCoMo-shaped) report modules.
    own_report = False

    def report(self, directory: Path) -> list[Path]:
        raise NotImplementedError

    def compare(self, dir_a: Path, dir_b: Path, out: Path) -> dict[str, Any]:
        raise NotImplementedError

    def board_row(self, directory: Path) -> BoardRow | None:
        """A results folder as `locoscore board` shows it: its headline and other metrics,
        per type, answered and failed, per-question scores for the paired test. None: the
        board reads the folder's LoCoMo-shaped rows and report statistics itself."""
        return None

    # A benchmark whose judge audit builds its probe sets from its own data.
    own_audit = False

    async def audit(
        self, data: Any, settings: Any, out: Path, **options: Any
    ) -> tuple[Any, dict[str, Any] | None]:
        """The probe sets judged into `out`: the pass and the audit document. With
        `options["sample"]` (`--limit`), one sample of the questions, stratified by type,
        cuts every set; the document carries it and its signature the `sample:` part."""
        raise NotImplementedError

    # A benchmark with its own judge rules and aggregation judges through `judge`; the
    # others use the generic judge pass over joined prediction records.
    own_judge = False

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
        raise NotImplementedError

    # What `judge` and `audit` print for a benchmark with its own judge or audit: lines
    # built from the summary section (or audit document) it returned; a dry run's lines
    # (None: the shared estimate of a single pass). A section's `error` fails the command.
    def judge_lines(self, section: dict[str, Any], out: Path) -> list[str]:
        return []

    def audit_lines(self, document: dict[str, Any], out: Path) -> list[str]:
        return []

    def dry_run_lines(self, result: Any) -> list[str] | None:
        return None


def parse_type_templates(values: Sequence[str]) -> dict[str, Path]:
    """`--type-template TYPE=FILE` values as {type: file}."""
    from locoscore.errors import InputError

    out = {}
    for value in values:
        key, sep, path = value.partition("=")
        if not sep or not key.strip() or not path.strip():
            raise InputError(f"expected TYPE=FILE, got {value!r}", field="--type-template")
        out[key.strip()] = Path(path.strip())
    return out
