"""PersonaMem (Jiang et al., 2025; arXiv 2504.14225), 32k split, behind the benchmark
interface: four-option questions about 20 personas over 37 shared contexts, scored by
accuracy with no judge.

Two protocols (`protocol.Protocol`). locoscore's, the default, differs from the official
evaluation on purpose (`options`, `replies`): the options are shown in a seeded order
(signed), the reply is read by a parser that takes every unambiguous form and refuses the
rest (a refused reply fails, never a guess), either letter of a doubled gold is right, and a
failed answer stays in the denominator. `official` (`score --protocols official`) shows the
stored order and reads replies as the official `extract_answer` does, so a published
accuracy can be recomputed from its replies. Every score is shown beside the floors no model
is needed for (always-longest, always-shortest, first option). The only copy here is a
peer's derived folder (`data`): it signs as `personamem-32k-derived`.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from locoscore.benchmarks.base import Benchmark, BlindBaseline, KnownFile, QuestionType
from locoscore.benchmarks.personamem.data import (
    LETTERS,
    PINNED_SHA256,
    QUESTION_TYPES,
    PersonaMemData,
)
from locoscore.benchmarks.personamem.protocol import LOCOSCORE, PROTOCOLS, Protocol
from locoscore.data.conversation import Conversation, Question, SessionInput, TurnInput

if TYPE_CHECKING:
    from locoscore.benchmarks.calls import ScoreCall, Terminal
    from locoscore.results.board_row import BoardRow

TYPE_IDS = {key: i for i, key in enumerate(QUESTION_TYPES, 1)}
SPEAKERS = ("system", "user", "assistant")
VERSION = "personamem-32k-derived"
PINNED_FOLDER = KnownFile(VERSION, "the derived 32k folder", PINNED_SHA256)
FETCH_NAMES = {"personamem": PINNED_FOLDER}
OPTION_HELP = {
    "--protocols": "locoscore (its default: shuffled options, locoscore's parser) or "
    "official (the stored order, the official extract_answer), one at a time",
}


class PersonaMem(Benchmark):
    name = "personamem"
    description = "PersonaMem (Jiang et al., 2025): 32k split, 589 four-option questions"
    types = tuple(QuestionType(i, key, key) for key, i in TYPE_IDS.items())
    known_files = (PINNED_FOLDER,)
    # scored by `run` (and `score` for an answers file); no judge: `require` says so
    commands = frozenset({"run", "dataset", "score", "report", "compare"})
    fetch_names = FETCH_NAMES
    judge_protocols: tuple[str, ...] = ()  # scored without a judge
    option_help = OPTION_HELP
    answer_prompt_name = "locoscore-personamem-answer-v1"
    # answer_max_tokens stays the default 128: the prompt asks for one letter, but a model
    # that explains itself first is still read rather than cut off
    # How replies are shown and read (`for_protocol`). The option order's seed is part of
    # the signature (`signature_part`) and of run.json's dataset section, so two runs shown
    # in another order never pass for the same run.
    protocol: Protocol = LOCOSCORE

    @property
    def shuffle_seed(self) -> int | None:
        return self.protocol.seed

    # The profile a run may take besides the default, where `run` has `--protocol` (it
    # calls `for_protocol`); `score --protocols` takes it today.
    run_protocols: tuple[str, ...] = ("official",)

    def for_protocol(self, protocol: str | None) -> PersonaMem:
        """This benchmark under `protocol` (None: the default, locoscore): its option order,
        its parser and, for a run, its answer prompt (the official profile's asks for the
        answer after `<final_answer>`, as the official code does)."""
        from locoscore.errors import InputError

        if protocol is None or protocol == self.protocol.name:
            return self
        if protocol not in PROTOCOLS:
            raise InputError(
                f"personamem scores with one protocol, one of {', '.join(PROTOCOLS)}; "
                f"not {protocol!r} (`run --protocol`, `score --protocols`)",
                field="protocol",
            )
        other = copy.copy(self)
        other.protocol = PROTOCOLS[protocol]
        if other.protocol.official:
            other.answer_prompt_name = "locoscore-personamem-answer-final-marker-v1"
        return other

    def require(self, command: str) -> None:
        if command == "judge":
            from locoscore.errors import InputError

            raise InputError(
                "personamem needs no judge: `run` scores the chosen option itself "
                "(`locoscore score ANSWERS --benchmark personamem` scores an answers file)",
                field="--benchmark",
            )
        super().require(command)

    def fetch(self, name: str, url: str | None, dest: Path | None) -> Path:
        from locoscore.benchmarks.personamem.fetch import fetch_personamem

        return fetch_personamem(url, dest)

    def load(self, path: str | Path | None) -> PersonaMemData:
        from locoscore.benchmarks.personamem.data import load_personamem
        from locoscore.benchmarks.personamem.fetch import default_destination
        from locoscore.errors import DatasetError

        if path is None:
            path = default_destination()
            if not path.is_dir():
                raise DatasetError(
                    "PersonaMem needs --dataset DIR (the 32k folder holding queries.json.gz "
                    "and documents.json.gz); see `locoscore dataset fetch personamem`"
                )
        return load_personamem(Path(path))

    def data_version(self, data: PersonaMemData) -> str:
        return VERSION if data.pinned else "personamem-unknown"

    def signature_part(self, data: PersonaMemData) -> str:
        return f"{super().signature_part(data)}:{self.protocol.order_part}"

    def scoring_signature(self, data: PersonaMemData) -> str:
        """What the scores depend on beyond the answers: the data, the option order, the
        parser (`bench:…:shuffle0|parse:locoscore-v2`, `bench:…:stored|parse:official`)."""
        return f"{self.signature_part(data)}|parse:{self.protocol.parser}"

    def describe_data(self, data: PersonaMemData) -> dict[str, Any]:
        return {
            **super().describe_data(data),
            "files": dict(data.files),
            "derived": "vectorize-io/agent-memory-benchmark @ de83fa7, data/personamem/32k/ "
            "(session-level: the release's per-question turn cut is not applied)",
            "shuffle_seed": self.shuffle_seed,
        }

    def conversations(self, data: PersonaMemData) -> list[Conversation]:
        """One conversation per shared context, `pm-<n>` in the file's order (a context's
        id is a hash, shown to no system); its sessions undated (the copy has none)."""
        out = []
        for n, sessions in enumerate(data.contexts.values(), 1):
            cid = f"pm-{n:02d}"
            made = tuple(
                SessionInput(
                    cid,
                    s,
                    None,
                    None,
                    tuple(
                        TurnInput(role, f"S{s}:{t}", text)
                        for t, (role, text) in enumerate(session.turns, 1)
                    ),
                    SPEAKERS,
                )
                for s, session in enumerate(sessions, 1)
            )
            out.append(Conversation(cid, SPEAKERS, made))
        return out

    def _conversation_ids(self, data: PersonaMemData) -> dict[str, str]:
        return {c: f"pm-{n:02d}" for n, c in enumerate(data.contexts, 1)}

    def all_questions(self, data: PersonaMemData) -> list[Question]:
        from locoscore.benchmarks.personamem.options import gold_text, question_text

        ids = self._conversation_ids(data)
        return [
            Question(
                question_id=item.question_id,
                conversation_id=ids[item.context_id],
                text=question_text(item, self.shuffle_seed),
                category=TYPE_IDS[item.type_key],
                gold=gold_text(item, self.shuffle_seed),
                # the copy's gold sessions are all of the context's: no turn is evidence
                evidence=(),
                record_ids={
                    "context_id": item.context_id,
                    "persona_id": item.persona_id,
                    "topic": item.topic,
                    "stored_gold_letter": item.gold_letter,
                },
            )
            for item in data.items
        ]

    def blind_baselines(
        self, data: PersonaMemData, questions: Sequence[Question]
    ) -> tuple[BlindBaseline, ...]:
        from locoscore.benchmarks.personamem.options import blind_pick, order

        items = {i.question_id: i for i in data.items}
        chosen = [items[q.question_id] for q in questions]

        def floor(name: str, description: str, pick: Any) -> BlindBaseline:
            scores = {i.question_id: float(pick(i) in i.gold_indexes) for i in chosen}
            return BlindBaseline(name, description, scores)

        return (
            floor(
                "always-longest",
                "the option with the most characters (whole text after strip); ties to the "
                "earlier letter as stored",
                lambda i: blind_pick(i, "longest"),
            ),
            floor(
                "always-shortest",
                "the option with the fewest characters (whole text after strip); ties to the "
                "earlier letter as stored",
                lambda i: blind_pick(i, "shortest"),
            ),
            floor(
                "first-option",
                f"always ({LETTERS[0]}), the first option as shown ({self._order_words()})",
                lambda i: order(i.question_id, self.shuffle_seed)[0],
            ),
        )

    def _order_words(self) -> str:
        seed = self.shuffle_seed
        return "as stored" if seed is None else f"shuffle seed {seed}"

    def default_answer_prompt_text(self) -> str:
        from locoscore.benchmarks.personamem.options import ANSWER_PROMPT, FINAL_MARKER_PROMPT

        return FINAL_MARKER_PROMPT if self.protocol.official else ANSWER_PROMPT

    def score_run(
        self, predictions: Path, data: PersonaMemData, out: Path, run_section: dict[str, Any]
    ) -> dict[str, Any]:
        from locoscore.benchmarks.personamem import scoring
        from locoscore.results.layout import PREDICTIONS, RUN_JSON

        rows = scoring.score_rows(
            scoring.read_records(predictions), scoring.items_by_id(data), self.protocol, predictions
        )
        summary = self.write_scores(rows, data, out, {"run": run_section})
        return {**summary, "_written": (PREDICTIONS, RUN_JSON, *self.run_files)}

    def write_scores(
        self, rows: list[dict[str, Any]], data: PersonaMemData, out: Path, extra: dict[str, Any]
    ) -> dict[str, Any]:
        """scores.jsonl and summary.json of scored rows (a run's, or `score`'s answers);
        `extra`: the run or answers section. The floors are added by the generic
        `record_floors` (the run's, or `score`'s through `asked`)."""
        from locoscore.benchmarks.personamem import scoring

        fields = {
            **self.summary_fields(),
            "data": self.describe_data(data),
            "scoring": self.protocol.describe(self.scoring_signature(data)),
            **extra,
        }
        return scoring.write_scores(rows, QUESTION_TYPES, fields, out, self.protocol.label)

    def asked(self, data: PersonaMemData, rows: list[dict[str, Any]]) -> list[Question]:
        """The questions scored rows count (a failed answer the official protocol leaves
        out is not one), in the benchmark's order."""
        ids = {r["question_id"] for r in rows if r["metric"] is not None}
        return [q for q in self.all_questions(data) if q.question_id in ids]

    def score_command(self, call: ScoreCall, terminal: Terminal) -> bool:
        from locoscore.benchmarks.personamem.folder import refuse_score_options, score_answers
        from locoscore.generic.floors import record_floors

        refuse_score_options(call)
        bench = self.for_protocol(call.protocols)
        data = bench.load(call.dataset)

        def write(rows: list[dict[str, Any]], extra: dict[str, Any]) -> dict[str, Any]:
            summary = bench.write_scores(rows, data, call.out, extra)
            return record_floors(call.out, summary, bench, data, bench.asked(data, rows))

        return score_answers(data, bench.protocol, write, call, terminal)

    def board_row(self, directory: Path) -> BoardRow:
        """The generic row, its scoring signature (protocol and parser) as a lexical
        protocol: the board never ranks two parses of replies as one group."""
        import dataclasses

        from locoscore.results.board_row import read_summary

        row = super().board_row(directory)
        signature = (read_summary(directory).get("scoring") or {}).get("signature")
        if not isinstance(signature, str):
            return row
        return dataclasses.replace(row, lexical=(("parse", signature),))

    def report(self, directory: Path) -> list[Path]:
        from locoscore.benchmarks.personamem.folder import write_report
        from locoscore.claim.refresh import write_claim

        write_claim(directory, self)  # the report's first box
        return write_report(directory, self.description)


PERSONAMEM = PersonaMem()

__all__ = ["PERSONAMEM", "PersonaMem"]
