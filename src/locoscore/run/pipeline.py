"""`locoscore run`: a memory system through the benchmark, every cost measured.

    resolve (all input checked; nothing written on bad input)
    -> start the system -> per conversation (bounded concurrency): ingest once, in order,
       then its questions (bounded concurrency): search, place context, answer
    -> predictions.jsonl + run.json, then scores and reports as `locoscore score` writes them.

Everything final is committed to `DIR/run_state.sqlite` at once, so a rerun of the same
command after a crash (even kill -9) redoes only unfinished or failed questions, and no
answer call is made twice (the answer cache holds every reply).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import shutil
import warnings
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from locoscore.benchmarks import get_benchmark
from locoscore.benchmarks.answer_prompt import load_answer_prompt
from locoscore.data.conversation import Conversation, Question
from locoscore.errors import InputError, LocoscoreError
from locoscore.llm.call_errors import one_line_error
from locoscore.llm.endpoint import Served, served_note
from locoscore.llm.ledger import Ledger, Spend
from locoscore.llm.progress import ProgressSink
from locoscore.results.folder import check_out_dir
from locoscore.results.identity import drop_results
from locoscore.results.layout import RUN_STATE, SYSTEM_STATE
from locoscore.run.answerer import Answer, Answerer, resolve_answer_step
from locoscore.run.context_fit import ContextFit, check_bare_questions
from locoscore.run.dry_run import blocked_estimate, dry_run_estimate
from locoscore.run.floors import gold_evidence
from locoscore.run.folder import check_run_folder
from locoscore.run.ingest import IngestionMeasures, ingest_conversation
from locoscore.run.question import Retrieved, answer_question, failed_record, retrieve
from locoscore.run.settings import ResolvedRun, RunSettings
from locoscore.run.store import RunStore, forget_run
from locoscore.systems.base import Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.probe import QUICK_CHECKS, require_probe
from locoscore.systems.registry import make_system
from locoscore.tokens import count_tokens


async def all_or_none(coroutines: Iterable[Coroutine[Any, Any, None]]) -> None:
    """Run concurrently; if one raises, the others are cancelled (before the system and the
    answerer are closed under them) and its exception, not an ExceptionGroup, propagates, so
    the CLI still turns bad input into one line."""
    try:
        async with asyncio.TaskGroup() as group:
            for coroutine in coroutines:
                group.create_task(coroutine)
    except BaseExceptionGroup as errors:
        first: BaseException = errors
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None


class RunWarning(UserWarning):
    """Something about a run's budgets or inputs a reader of its numbers must know."""


@dataclass
class RunResult:
    resolved: ResolvedRun
    records: list[dict[str, Any]]
    ingestion: dict[str, dict[str, Any]]
    stop_reason: str | None = None
    calls_made: int = 0  # this attempt's answer requests
    calls_cached: int = 0  # answers this attempt took from the cache or earlier records
    # What this attempt and the earlier ones paid: answer calls, and the system's ingestion.
    answer_spend: Spend = field(default_factory=Spend)
    answer_spend_earlier: Spend = field(default_factory=Spend)
    ingestion_spend: Spend = field(default_factory=Spend)
    ingestion_spend_earlier: Spend = field(default_factory=Spend)
    dry_run_estimate: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    probe: dict[str, Any] | None = None  # the quick probe's report (None: --skip-probe)
    dropped: list[str] = field(default_factory=list)  # what --replace removed from the folder
    concurrency: dict[str, Any] | None = None  # the answer calls' concurrency as it went
    context_fit: dict[str, Any] | None = None  # the window check (None: window unknown)
    served: Served = field(default_factory=Served)  # who made the answers used
    answer_cost_unknown: str | None = None  # why the answer cost is n/a (None: known)
    retries: dict[str, int] = field(default_factory=dict)  # answer attempts sent again, by kind

    @property
    def signature(self) -> str:
        return self.resolved.signature_with(self.served)

    @property
    def failed(self) -> int:
        return sum(1 for r in self.records if r["error"] is not None)


def _select_conversations(
    all_convs: list[Conversation], wanted: list[str] | None
) -> list[Conversation]:
    if not wanted:
        return all_convs
    by_id = {c.conversation_id: c for c in all_convs}
    unknown = [cid for cid in wanted if cid not in by_id]
    if unknown:
        known = ", ".join(by_id)
        raise InputError(f"--conversations: unknown conversation {unknown[0]!r} (known: {known})")
    return [by_id[cid] for cid in dict.fromkeys(wanted)]


def resolve_run(settings: RunSettings) -> ResolvedRun:
    """Every input checked before anything is written or started."""
    if settings.top_k < 1:
        raise InputError("--top-k must be at least 1")
    if settings.context_budget is not None and settings.context_budget < 1:
        raise InputError("--context-budget must be at least 1 token")
    if settings.concurrency < 1:
        raise InputError("--concurrency must be at least 1")
    check_out_dir(settings.out)
    benchmark = get_benchmark(settings.benchmark).for_protocol(settings.protocol)
    dataset = benchmark.load(settings.dataset)
    every_conversation = benchmark.conversations(dataset)
    conversations = _select_conversations(every_conversation, settings.conversations)
    chosen = tuple(c.conversation_id for c in conversations)
    questions = benchmark.questions(
        dataset, conversations, include_excluded=settings.include_adversarial
    )
    sample = None
    if settings.sample is not None:
        # a smoke test: only the sampled questions are asked, only their conversations ingested
        sample = benchmark.draw_sample(
            settings.sample, [(q.question_id, q.category) for q in questions]
        )
        assert sample is not None
        questions = sample.keep(questions, lambda q: q.question_id)
        asked = {q.conversation_id for q in questions}
        conversations = [c for c in conversations if c.conversation_id in asked]
    population = len(questions)
    selection = [c.conversation_id for c in conversations]
    if settings.shard is not None:
        # after the sample: N shards of a sample are that sample, split by whole conversations
        mine = settings.shard.keep([(c.conversation_id, c.turn_count) for c in conversations])
        conversations = [c for c in conversations if c.conversation_id in mine]
        questions = [q for q in questions if q.conversation_id in mine]
    prompt = (
        load_answer_prompt(settings.answer_prompt)
        if settings.answer_prompt
        else benchmark.answer_prompt(dataset)
    )
    # the answer's token budget and temperature are the benchmark's (BEAM's summaries run
    # long; an official profile fixes its own)
    answer_settings = dataclasses.replace(
        settings.answer,
        concurrency=settings.concurrency,
        max_tokens=benchmark.answer_max_tokens,
        temperature=benchmark.answer_temperature,
    )
    if settings.shard is not None and answer_settings.pool is not None:  # its endpoints
        shard = settings.shard
        pool = answer_settings.pool.for_shard(shard.index, shard.count)
        answer_settings = dataclasses.replace(answer_settings, pool=pool)
    answer = resolve_answer_step(answer_settings, prompt, needs_key=not settings.dry_run)
    check_bare_questions(answer, questions)  # before anything is created
    system = make_system(
        settings.system,
        settings.system_options,
        SystemContext(state_dir=settings.out / SYSTEM_STATE, prices=settings.answer.prices),
    )
    if system.takes_gold_evidence:  # systems never read a benchmark: the run hands it over
        system.set_gold_evidence(gold_evidence(benchmark, dataset, questions, settings.system))
    errata = benchmark.errata(settings.errata, dataset)  # a bad list: refused before any work
    resolved = ResolvedRun(
        settings, dataset, conversations, questions, system, answer, errata, sample
    )
    resolved.shard_population = population
    resolved.shard_selection = selection
    resolved.conversations_total = len(every_conversation)
    resolved.conversations_chosen = chosen
    resolved.drop = check_run_folder(
        settings.out,
        resolved.signature,
        replace=settings.replace,
        identity=benchmark.records_identity,
    )
    return resolved


class _Harness:
    def __init__(self, run: ResolvedRun, store: RunStore, progress: ProgressSink | None) -> None:
        self.run = run
        self.store = store
        self.progress = progress
        dry = run.settings.dry_run
        # What every attempt paid, in the run's state (a dry run writes nothing).
        self.answer_ledger = None if dry else Ledger(store.conn, "answer")
        self.ingest_ledger = None if dry else Ledger(store.conn, "ingestion")
        self.answerer = Answerer(
            run.answer,
            store,
            on_status=progress.status if progress is not None else None,
            ledger=self.answer_ledger,
            shared_context=run.system.ignores_budget,
        )
        self.question_slots = asyncio.Semaphore(run.settings.concurrency)
        self.ingest_slots = asyncio.Semaphore(run.settings.ingest_concurrency)
        self.ingestion: dict[str, dict[str, Any]] = store.ingestion()
        self.warnings: list[str] = []
        run.system.on_notice = self.warn  # what the system says of its results: run.json
        # dry run: prompts that would be sent, as (tokens, shared prefix, its tokens)
        self.prompt_tokens: list[tuple[int, str, int]] = []
        self._prefix_tokens: dict[str, int] = {}
        self.dry_search_errors: list[str] = []
        answers = not (run.answer.is_extractive or run.system.answers_itself)
        self.fit = ContextFit.for_step(run.answer) if answers else None
        # a conversation's first question alone, then the rest (they read its cached prefix)
        self.first_alone = answers and self.answerer.caches_prompts
        contradiction = run.answer.window_contradiction() if answers else None
        if contradiction is not None:
            self.warn(contradiction)
        self.cached_answers: dict[str, Answer] = {}  # question id -> answer from the cache
        self.ingest_spent = Usage()  # this attempt's ingestion, session by session
        self.sessions_total = 0
        self.sessions_done = 0  # added, or not to be added (already stored, failed)
        self.sessions_added = 0

    def warn(self, message: str) -> None:
        self.warnings.append(message)
        warnings.warn(message, RunWarning, stacklevel=2)

    def _check_bypass(self, conversation: Conversation) -> None:
        system, top_k = self.run.system, self.run.settings.top_k
        items = system.items_in(conversation.conversation_id)
        entry = self.ingestion.get(conversation.conversation_id)
        if items is not None and isinstance(entry, dict):
            # what the system holds once ingested: the claim card's "items stored" and the
            # haystack its top-k is measured against
            entry["items"] = items
        if not system.ignores_budget and items is not None and top_k >= items:
            self.warn(
                f"{conversation.conversation_id}: --top-k {top_k} reaches the {items} items "
                f"the conversation holds: retrieval is bypassed (every item is returned)"
            )

    def _report(self, done: int = 0, failed: int = 0, tokens: int = 0) -> None:
        """Questions finished, and the running calls and cost (answering and ingestion)."""
        if self.progress is None:
            return
        pool = self.answerer.pool
        answering = self.answerer.spent().cost_usd  # None when no price applies
        cost = None if answering is None else answering + (self.ingest_spent.cost_usd or 0.0)
        self.progress.update(done, failed, tokens, cost, pool.made + self.ingest_spent.calls)

    def ingestion_spend(self) -> Spend:
        u = self.ingest_spent
        return Spend(u.calls, self.sessions_added, u.input_tokens, u.output_tokens, u.cost_usd)

    def _ingested(self, sessions: int, spent: Usage) -> None:
        """`sessions` more added or passed over, `spent` more spent by the system."""
        self.ingest_spent = self.ingest_spent + spent
        self.sessions_done += sessions
        if spent.calls and self.ingest_ledger is not None:
            self.ingest_ledger.record(self.ingestion_spend())
        if self.progress is not None and sessions:
            done, total = self.sessions_done, self.sessions_total
            self.progress.status(f"ingested {done:,}/{total:,} sessions" if done < total else "")
        self._report()

    async def conversation(self, conversation: Conversation, pending: list[Question]) -> None:
        added = 0

        def spent(sessions: int, usage: Usage) -> None:
            nonlocal added
            added += sessions
            self.sessions_added += sessions
            self._ingested(sessions, usage)

        async with self.ingest_slots:
            measures: IngestionMeasures = await ingest_conversation(
                self.run.system, conversation, spent
            )
        if added < measures.sessions:  # already stored, or failed: nothing more to add
            self._ingested(measures.sessions - added, Usage())
        if not measures.skipped or conversation.conversation_id not in self.ingestion:
            self.ingestion[conversation.conversation_id] = measures.to_json()
            if not self.run.settings.dry_run:
                self.store.put_ingestion(conversation.conversation_id, measures.to_json())
        if measures.error is not None:
            for question in pending:
                self._finish(failed_record(question, f"ingestion failed: {measures.error}"))
            return
        self._check_bypass(conversation)
        found: dict[str, Any] = {}  # question id -> its search (or the error it raised)
        if self.fit is not None and not self.run.settings.dry_run:
            # Every prompt counted before the first answer call: what does not fit is said
            # once, per conversation, and recorded without a call.
            await all_or_none(self._count_prompt(q, found) for q in pending)
        if self.fit is not None:
            ids = [q.question_id for q in pending]
            if (line := self.fit.describe(ids, conversation.conversation_id)) is not None:
                self.warn(line)
        if self.first_alone and len(pending) > 1:
            # The first question writes the conversation's cached prefix; the rest, sent once
            # its reply has come, read it instead of each writing it again.
            first, *rest = pending
            await self.question(first, found.get(first.question_id))
            await all_or_none(self.question(q, found.get(q.question_id)) for q in rest)
            return
        await all_or_none(self.question(q, found.get(q.question_id)) for q in pending)

    async def _count_prompt(self, question: Question, found: dict[str, Any]) -> None:
        assert self.fit is not None
        s = self.run.settings
        async with self.question_slots:
            found[question.question_id] = await self.fit.retrieve_and_count(
                question, self.run.system, top_k=s.top_k, budget=s.context_budget
            )

    async def question(
        self, question: Question, retrieved: Retrieved | Exception | None = None
    ) -> None:
        async with self.question_slots:
            if self.run.settings.dry_run:
                await self._dry_question(question)
                return
            record, answer = await answer_question(
                question,
                self.run.system,
                self.answerer,
                self.run.answer.prompt,
                top_k=self.run.settings.top_k,
                budget=self.run.settings.context_budget,
                retrieved=retrieved,
                overflow=self.fit.recorded if self.fit is not None else None,
            )
            if answer is not None and answer.cached:
                self.cached_answers[question.question_id] = answer
            else:
                self.cached_answers.pop(question.question_id, None)
            made = ("", False) if answer is None else (answer.served_model, answer.fake)
            self._finish(record, made if record["error"] is None else ("", False))

    def warn_if_another_model_served(self) -> None:
        step = self.run.answer
        if step.model is None or step.endpoint is None:
            return
        note = served_note(step.model, self.answerer.served, step.endpoint, "answers")
        if note is not None:
            self.warn(note)

    def stale_questions(self, questions: list[Question]) -> list[Question]:
        """Questions answered from the cache by another server than the live replies name:
        asked again (the answerer now refuses those cached answers)."""
        return [
            q
            for q in questions
            if (a := self.cached_answers.get(q.question_id)) is not None
            and self.answerer.stale(a.served_model, a.fake)
        ]

    async def _dry_question(self, question: Question) -> None:
        """What the real run would send for this question, counted, not sent."""
        s = self.run.settings
        if self.run.answer.is_extractive or self.run.system.answers_itself:
            return  # no call of locoscore's answer step
        try:
            retrieved = await retrieve(
                question, self.run.system, top_k=s.top_k, budget=s.context_budget
            )
        except Exception as exc:  # the real run would record it; the estimate skips it
            self.dry_search_errors.append(f"{question.question_id}: {one_line_error(exc)}")
            return
        prompt = self.run.answer.prompt.render(
            question.text, retrieved.context.text, question.reader_date
        )
        if self.fit is not None and await self.fit.overflow(question.question_id, prompt):
            return  # the real run records it as context_overflow without a call
        if self.store.get_answer(self.answerer.key(prompt)) is None:
            shared = self.run.answer.prompt.shared_prefix(
                question.text, retrieved.context.text, question.reader_date
            )
            if shared not in self._prefix_tokens:
                self._prefix_tokens[shared] = count_tokens(shared)
            self.prompt_tokens.append((count_tokens(prompt), shared, self._prefix_tokens[shared]))

    def _finish(self, record: dict[str, Any], served: tuple[str, bool] = ("", False)) -> None:
        self.store.put_record(record["question_id"], record, served)
        tokens = record.get("answer_tokens") or {}
        spent = int(tokens.get("input", 0)) + int(tokens.get("output", 0))
        self._report(1, int(record["error"] is not None), spent)


def _earlier(ledger: Ledger | None) -> Spend:
    return Spend() if ledger is None else ledger.earlier


async def execute_run(
    run: ResolvedRun,
    *,
    progress: ProgressSink | None = None,
    on_started: Callable[[], None] | None = None,
) -> RunResult:
    """Start the system, ingest, answer; the records in dataset order."""
    s = run.settings
    if s.dry_run and (blocker := run.system.dry_run_blocker()) is not None:
        return RunResult(run, [], {}, dry_run_estimate=blocked_estimate(run, blocker))
    created = not s.out.exists()
    probe: dict[str, Any] | None = None
    try:
        await run.system.start()
        if run.system.reference is not None:
            # A reference system stores nothing, or only what the run hands it: the probe's
            # synthetic pair would fail it by design, so the run records why it was not run.
            why = f"{s.system} is the {run.system.reference}, not an integration to test"
            probe = {"system": s.system, "skipped": why}
        elif not s.skip_probe:
            # The quick integration probe on a synthetic pair of its own: a system that loses
            # dates or captions, leaks across conversations or ignores top-k stops here.
            checks = (*QUICK_CHECKS, *run.benchmark.probe_checks)
            probe = (await require_probe(run.system, checks)).to_json()
    except InputError:
        await run.system.aclose()
        if created:
            shutil.rmtree(s.out, ignore_errors=True)  # nothing written on bad input
        raise
    if on_started is not None:
        on_started()
    if run.system.ignores_budget:
        warnings.warn(
            f"{s.system} places the whole conversation in the prompt: --top-k and "
            "--context-budget do not apply",
            RunWarning,
            stacklevel=2,
        )
    elif run.system.reference is not None and s.context_budget is not None:
        warnings.warn(
            f"{s.system} is a reference system: --top-k and --context-budget do not apply",
            RunWarning,
            stacklevel=2,
        )
    dry = s.dry_run
    dropped = (
        []
        if dry or run.drop is None
        else drop_results(s.out, keep_run=run.drop != "all", forget_run=forget_run)
    )
    state = s.out / RUN_STATE
    store = RunStore(state if not dry or state.exists() else Path(":memory:"))
    if not dry:
        store.set_signature(run.signature)
    finished = store.finished()
    pending = [q for q in run.questions if q.question_id not in finished]
    harness = _Harness(run, store, None if dry else progress)
    by_conv: dict[str, list[Question]] = {}
    for q in pending:
        by_conv.setdefault(q.conversation_id, []).append(q)
    harness.sessions_total = sum(
        len(c.sessions) for c in run.conversations if c.conversation_id in by_conv
    )
    if harness.progress is not None:
        harness.progress.start(len(run.questions), len(run.questions) - len(pending), 0)
    try:
        await all_or_none(
            harness.conversation(c, by_conv[c.conversation_id])
            for c in run.conversations
            if c.conversation_id in by_conv
        )
        if not dry:
            await all_or_none(harness.question(q) for q in harness.stale_questions(pending))
            harness.warn_if_another_model_served()
    finally:
        with contextlib.suppress(Exception):
            await harness.answerer.aclose()
        if harness.fit is not None:
            harness.fit.close()
        await run.system.aclose()
        if harness.progress is not None:
            harness.progress.stop()
    calls_answer_step = not (run.answer.is_extractive or run.system.answers_itself)
    resumed = len(run.questions) - len(pending) if calls_answer_step else 0
    result = RunResult(
        run,
        [],
        harness.ingestion,
        stop_reason=harness.answerer.pool.stop_reason,
        calls_made=harness.answerer.pool.made,
        calls_cached=harness.answerer.calls_cached + resumed,
        answer_spend=harness.answerer.spent(),
        answer_spend_earlier=_earlier(harness.answer_ledger),
        ingestion_spend=harness.ingestion_spend(),
        ingestion_spend_earlier=_earlier(harness.ingest_ledger),
        warnings=harness.warnings,
        probe=probe,
        dropped=dropped,
        concurrency=harness.answerer.concurrency(),
        context_fit=harness.fit.to_json(len(pending)) if harness.fit else None,
        # who made every answer the run's lines hold, those kept from earlier attempts too
        served=store.served(q.question_id for q in run.questions),
        answer_cost_unknown=harness.answerer.cost_unknown_reason(),
        retries=dict(harness.answerer.pool.retries),
    )
    if dry:
        result.dry_run_estimate = dry_run_estimate(
            run, harness.prompt_tokens, harness.dry_search_errors
        )
        if harness.fit is not None:  # prompts that do not fit: no call, so not "to make"
            result.dry_run_estimate["cached"] -= len(harness.fit.overflows)
            result.dry_run_estimate["context_fit"] = harness.fit.to_json(len(run.questions))
        store.close()
        return result
    records = store.all_records()
    store.close()
    result.records = [records[q.question_id] for q in run.questions if q.question_id in records]
    missing = len(run.questions) - len(result.records)
    if missing:
        raise LocoscoreError(f"{missing} question(s) have no record; rerun the same command")
    return result
