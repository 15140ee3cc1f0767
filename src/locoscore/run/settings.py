"""What `locoscore run` was asked to do, resolved once into what it applies: the system,
the budgets, the answer step, the dataset, and the run signature that names all of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from locoscore._version import __version__
from locoscore.benchmarks import DEFAULT_BENCHMARK, Benchmark, get_benchmark
from locoscore.data.conversation import Conversation, Question
from locoscore.data.sample import QuestionSample, SampleSpec, with_component, with_sample
from locoscore.data.selection import conversations_component, run_selection
from locoscore.data.shard import Shard, with_shard
from locoscore.llm.endpoint import Served
from locoscore.run.answerer import AnswerSettings, AnswerStep
from locoscore.systems.base import MemorySystem, unbudgeted
from locoscore.tokens import TOKENIZER_NAME


@dataclass
class RunSettings:
    system: str
    out: Path
    system_options: dict[str, str] = field(default_factory=dict)
    dataset: Path | None = None
    conversations: list[str] | None = None
    include_adversarial: bool = True
    top_k: int = 10
    context_budget: int | None = None
    concurrency: int = 64
    ingest_concurrency: int = 4
    answer: AnswerSettings = field(default_factory=AnswerSettings)
    answer_prompt: Path | None = None
    dry_run: bool = False
    skip_probe: bool = False
    errata: Path | None = None  # --errata (else $LOCOSCORE_ERRATA or the fetched copy)
    benchmark: str = DEFAULT_BENCHMARK
    sample: SampleSpec | None = None  # --limit: a smoke test on a stratified sample
    replace: bool = False  # --replace: drop a folder's other run or other predictions
    shard: Shard | None = None  # --shard I/N: this shard's conversations only
    protocol: str | None = None  # --protocol: the benchmark's profile (None: its default)


@dataclass
class ResolvedRun:
    settings: RunSettings
    dataset: Any  # the benchmark's loaded file (path, sha256)
    conversations: list[Conversation]
    questions: list[Question]
    system: MemorySystem
    answer: AnswerStep
    errata: Any = None  # the benchmark's gold errata: the verified-gold view of the reports
    sample: QuestionSample | None = None  # the questions asked are this sample
    drop: Literal["all", "results"] | None = None  # what --replace drops before the run
    # --shard: the questions of the whole run (every shard's), as `run.json` records them
    shard_population: int = 0
    # --shard: the conversations every shard's run splits between them, in dataset order
    shard_selection: list[str] = field(default_factory=list)
    # the data file's conversations, of which --conversations may choose some (0: unknown)
    conversations_total: int = 0
    # the conversations chosen before a sample or a shard (every one without --conversations)
    conversations_chosen: tuple[str, ...] = ()

    @property
    def conversations_component(self) -> str | None:
        """`convs:K/N@H` when --conversations chose some of the file's (the selection)."""
        if not self.conversations_total:
            return None
        return conversations_component(self.conversations_chosen, self.conversations_total)

    @property
    def benchmark(self) -> Benchmark:
        return get_benchmark(self.settings.benchmark).for_protocol(self.settings.protocol)

    @property
    def dataset_version(self) -> str:
        return self.benchmark.data_version(self.dataset)

    @property
    def signature(self) -> str:
        """sacreBLEU-style: everything that changes a prediction, as applied (before any
        call: what the server served is added by `signature_with`)."""
        return self.signature_with(None)

    def signature_with(self, served: Served | None) -> str:
        s = self.settings
        options = self.system.signature_options()
        opts = ",".join(f"{k}={v}" for k, v in sorted(options.items())) or "default"
        if unbudgeted(self.system):
            budget = "top_k:n/a|budget:n/a"
        else:
            budget = f"top_k:{s.top_k}|budget:{s.context_budget or 'none'}"
        # `adv:` only where the benchmark excludes a type from the overall (`excluded_from_overall`)
        adv = f"|adv:{'yes' if s.include_adversarial else 'no'}"
        if not self.benchmark.excluded_from_overall:
            adv = ""
        # A system that answers itself replaces locoscore's answer step: name that instead.
        answer = (
            "answer:system" if self.system.answers_itself else self.answer.signature_with(served)
        )
        return with_shard(
            with_sample(
                with_component(
                    f"run:{s.system}|opts:{opts}|{budget}|{answer}"
                    f"|tok:{TOKENIZER_NAME}|{self.benchmark.signature_part(self.dataset)}"
                    f"{adv}|version:{__version__}",
                    self.conversations_component,
                ),
                self.sample,
            ),
            s.shard,
        )

    def describe(self, served: Served | None = None) -> dict[str, Any]:
        s = self.settings
        return {
            "signature": self.signature_with(served),
            "system": {
                "name": s.system,
                "options": self.system.signature_options(),
                "ignores_budget": self.system.ignores_budget,
                "answers_itself": self.system.answers_itself,
                # a reference system's role: the floor or the retrieval ceiling
                **({"reference": ref} if (ref := self.system.reference) else {}),
                # where its own models ran: device, precision (latencies, not results)
                **({"runtime": rt} if (rt := self.system.runtime()) is not None else {}),
            },
            "top_k": None if unbudgeted(self.system) else s.top_k,
            "context_budget": None if unbudgeted(self.system) else s.context_budget,
            "answer": self.answer.to_json(served),
            "tokenizer": TOKENIZER_NAME,
            **self.benchmark.summary_fields(),  # a third-party one: the spec that loads it
            "dataset": self.benchmark.describe_data(self.dataset),
            "conversations": [c.conversation_id for c in self.conversations],
            "questions": len(self.questions),
            "include_adversarial": s.include_adversarial,
            "sample": None if self.sample is None else self.sample.to_json(),
            **({} if s.shard is None else {"shard": self._shard_json()}),
            "selection": run_selection(
                self.conversations_chosen,
                self.conversations_total,
                sample=None if self.sample is None else self.sample.signature,
                shard=None if s.shard is None else s.shard.signature,
                questions=len(self.questions),
            ),
            "locoscore_version": __version__,
        }

    def _shard_json(self) -> dict[str, Any]:
        assert self.settings.shard is not None
        return self.settings.shard.to_json(
            len(self.conversations),
            len(self.questions),
            self.shard_population,
            self.shard_selection,
        )
