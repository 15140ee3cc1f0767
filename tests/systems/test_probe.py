"""The probe passes on the built-in systems and fails, naming the check, on broken ones."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from pathlib import Path

import broken_systems as broken
import pytest

from locoscore.data.conversation import Query
from locoscore.errors import InputError
from locoscore.systems.base import MemorySystem
from locoscore.systems.bm25 import BM25System
from locoscore.systems.context import SystemContext
from locoscore.systems.probe import (
    ALL_CHECKS,
    QUICK_CHECKS,
    ProbeFailed,
    check_names,
    require_probe,
    run_probe,
)
from locoscore.systems.probe_checks import _dated_in_text
from locoscore.systems.probe_conversations import (
    CONVERSATION_A,
    CONVERSATION_B,
    probe_conversations,
)
from locoscore.systems.probe_report import ProbeReport
from locoscore.systems.registry import make_system
from locoscore.testing import FakeConfig, FakeProvider


def probe(system: MemorySystem, checks=ALL_CHECKS, deadline_s: float = 5.0) -> ProbeReport:
    return asyncio.run(run_probe(system, checks, searchable_deadline_s=deadline_s))


def failed(report: ProbeReport) -> set[str]:
    return {check.name for check in report.failures}


def build(cls: type[BM25System], tmp_path: Path) -> BM25System:
    return cls({}, SystemContext(tmp_path))


@pytest.mark.parametrize(
    ("name", "options"),
    [("bm25", {}), ("bm25", {"granularity": "session"}), ("full-context", {})],
)
def test_every_check_passes_on_a_builtin_system(name, options, tmp_path):
    report = probe(make_system(name, options, SystemContext(tmp_path)))
    assert report.ok, report.failure_summary()
    assert [c.name for c in report.checks] == ["ingest", *ALL_CHECKS]
    assert report.ingest_sessions == 6  # three sessions each in A and B


@pytest.mark.parametrize(
    "granularity", [{"granularity": "turn"}, {"granularity": "session"}, {"chunk_tokens": "64"}]
)
def test_every_check_passes_on_embedding_against_the_fake_provider(granularity, tmp_path):
    with FakeProvider(FakeConfig()) as fake:
        options = {"base_url": fake.openai_url, **granularity}
        system = make_system("embedding", options, SystemContext(tmp_path))

        async def scenario() -> ProbeReport:
            await system.start()
            try:
                return await run_probe(system, ALL_CHECKS)
            finally:
                await system.aclose()

        report = asyncio.run(scenario())
        embedded = [text for r in fake.requests_log for text in r["body"]["input"]]
    assert report.ok, report.failure_summary()
    # the vectors came over HTTP, the caption inside the image turn's text
    # (64-token chunks cut this one after "[shares an image": the rest is in the next)
    chunked = "chunk_tokens" in granularity
    caption = ": a brass astrolabe on a desk]" if chunked else "[shares an image: a brass astrolabe"
    assert any(caption in text for text in embedded)
    if chunked:
        # 64-token chunks run across sessions: a fact in a chunk that starts in an earlier
        # session is dated by its session's header, written before it in the chunk.
        assert "(dated in the text)" in report.check("dates").evidence


def test_a_date_in_the_text_counts_only_when_written_before_the_fact():
    header = "Session 3 (1:15 pm on 23 October, 2020)"
    assert _dated_in_text(f"...\n{header}\nAnn: I saw Mordecrumb", "mordecrumb", header[11:-1])
    assert not _dated_in_text(f"Ann: I saw Mordecrumb\n{header}", "Mordecrumb", header[11:-1])
    assert not _dated_in_text("Ann: I saw Mordecrumb", "Mordecrumb", None)


def test_full_context_skips_top_k_because_it_ignores_the_budget(tmp_path):
    report = probe(make_system("full-context", {}, SystemContext(tmp_path)))
    assert report.check("top_k").status == "skipped"
    assert "ignores_budget" in report.check("top_k").evidence


def test_bm25_evidence_names_each_fact_with_its_session_day(tmp_path):
    report = probe(make_system("bm25", {}, SystemContext(tmp_path)))
    assert report.check("dates").evidence == (
        "6 facts carry their session's date: Quillon 2021-03-14, Orvenna 2021-08-02, "
        "Zanderfell 2022-01-19, Brimwater 2020-06-05, Tessivane 2020-10-23, "
        "Mordecrumb 2021-04-07"
    )
    assert report.check("top_k").evidence == "top_k=1 gave 1, top_k=3 gave 3"


def test_quick_subset_is_the_default_and_measures_time_to_searchable(tmp_path):
    report = probe(make_system("bm25", {}, SystemContext(tmp_path)), checks=QUICK_CHECKS)
    assert [c.name for c in report.checks] == ["ingest", *QUICK_CHECKS]
    assert QUICK_CHECKS == ("dates", "captions", "isolation", "top_k", "time_to_searchable")
    # bm25 indexes synchronously: the fact is found by the first search after add
    assert report.time_to_searchable_s is not None and report.time_to_searchable_s < 0.5


@pytest.mark.parametrize(
    ("cls", "expected", "evidence"),
    [
        (broken.DateDroppingBM25, {"dates"}, "dated date_iso=None date_raw=None"),
        (broken.IngestionDayBM25, {"dates"}, "date_iso='2026-12-01T09:00'"),
        (broken.CaptionDroppingBM25, {"captions"}, "caption dropped?"),
        (broken.TopKIgnoringBM25, {"top_k"}, "top_k=1 returned 10 items"),
        (broken.DoubleAddBM25, {"ingest_once"}, "twice (again as item 2): stored twice?"),
        (broken.ResetIgnoringBM25, {"reset"}, "after reset(A), a search for"),
        (broken.BadShapesBM25, {"shapes"}, "names dia_ids ['X9:9'] not in the conversation"),
    ],
)
def test_broken_system_fails_exactly_the_named_check(cls, expected, evidence, tmp_path):
    report = probe(build(cls, tmp_path))
    assert failed(report) == expected
    (failure,) = report.failures
    assert evidence in failure.evidence


def test_leaky_system_fails_isolation_naming_the_leaked_word(tmp_path):
    report = probe(build(broken.LeakyBM25, tmp_path))
    # searches span every conversation: B's searches return A's facts, and a conversation
    # never added returns items
    assert failed(report) == {"isolation", "unknown_conversation"}
    isolation = report.check("isolation").evidence
    assert "search of A for 'What is the name of the sailboat Dervla restored?' returned B's" in (
        isolation
    )


def test_date_dropping_evidence_names_fact_session_and_day(tmp_path):
    report = probe(build(broken.DateDroppingBM25, tmp_path), checks=("dates",))
    assert report.check("dates").evidence.startswith(
        "'Quillon' (session 1, 2021-03-14) came back in item 1 dated date_iso=None date_raw=None"
    )


def test_quick_subset_catches_each_broken_behaviour(tmp_path):
    for cls, name in [
        (broken.DateDroppingBM25, "dates"),
        (broken.CaptionDroppingBM25, "captions"),
        (broken.LeakyBM25, "isolation"),
        (broken.TopKIgnoringBM25, "top_k"),
    ]:
        report = probe(build(cls, tmp_path), checks=QUICK_CHECKS)
        assert name in failed(report), cls.__name__
        assert name in report.failure_summary()


def test_slow_indexer_is_measured_not_failed(tmp_path):
    report = probe(build(broken.SlowIndexBM25, tmp_path), deadline_s=5.0)
    assert report.ok, report.failure_summary()
    # searchable 0.3 s after add, found by a poll at most one pause (≤ 0.4 s here) later
    assert 0.3 <= report.time_to_searchable_s < 1.0
    # the evidence names the measured wait (its exact value depends on the machine's load)
    found = re.search(r"searchable (\d+\.\d{3}) s later", report.check("ingest").evidence)
    assert found is not None and 0.3 <= float(found.group(1)) < 1.0


def test_never_searchable_fails_time_to_searchable_at_the_deadline(tmp_path):
    report = probe(
        build(broken.NeverIndexesBM25, tmp_path), checks=("time_to_searchable",), deadline_s=0.3
    )
    assert failed(report) == {"time_to_searchable"}
    assert report.time_to_searchable_s is None
    assert "'Fennimaru' not found within 0.3 s of add and finish" in report.failures[0].evidence


def test_self_answering_system_is_checked_on_its_answers(tmp_path):
    report = probe(build(broken.SelfAnsweringBM25, tmp_path))
    assert report.ok, report.failure_summary()
    assert "(answered)" in report.check("dates").evidence


def test_self_answering_system_without_dates_fails_dates(tmp_path):
    report = probe(build(broken.DatelessAnsweringBM25, tmp_path))
    assert failed(report) == {"dates"}
    assert "expected the month and year of 2021-03-14" in report.check("dates").evidence


def test_crashing_search_fails_checks_with_the_error_never_raises(tmp_path):
    report = probe(build(broken.CrashingSearchBM25, tmp_path))
    assert report.check("ingest").status == "passed"
    assert failed(report) == set(ALL_CHECKS)
    # one line, the exception's type and first line
    assert report.check("dates").evidence == (
        "search of A for 'What name did Marisol give the ferret she adopted?' raised "
        "RuntimeError: index file vanished"
    )
    assert report.check("unknown_conversation").evidence == (
        "raised RuntimeError: index file vanished (expected no items or a clean LocoscoreError)"
    )


def test_unknown_conversation_crash_is_a_failure_stale_items_too(tmp_path):
    crash = probe(build(broken.UnknownConversationCrashBM25, tmp_path), ("unknown_conversation",))
    assert failed(crash) == {"unknown_conversation"}
    assert "raised KeyError" in crash.failures[0].evidence
    stale = probe(build(broken.StaleItemsBM25, tmp_path), ("unknown_conversation",))
    assert failed(stale) == {"unknown_conversation"}
    assert "items for a conversation never added" in stale.failures[0].evidence


def test_ingestion_failure_skips_the_other_checks(tmp_path):
    report = probe(build(broken.CrashingAddBM25, tmp_path))
    assert report.check("ingest").evidence == (
        "add(session 2 of 'locoscore-probe-a') raised ConnectionError: memory server went away"
    )
    assert failed(report) == {"ingest"}
    assert {c.status for c in report.checks[1:]} == {"skipped"}
    assert not report.ok


def test_probe_resets_its_conversations_and_leaves_real_ones_alone(tmp_path):
    system = make_system("bm25", {}, SystemContext(tmp_path))
    a, _ = probe_conversations()
    real = [replace(s, conversation_id="conv-26") for s in a.conversation.sessions]

    async def scenario() -> tuple[int | None, ...]:
        await system.reset("conv-26")
        for session in real:
            await system.add(session)
        before = await system.search(Query("conv-26", "q", "ferret", 3))
        await run_probe(system, ALL_CHECKS)
        after = await system.search(Query("conv-26", "q", "ferret", 3))
        assert after == before
        return (
            system.items_in("conv-26"),
            system.items_in(CONVERSATION_A),
            system.items_in(CONVERSATION_B),
        )

    assert asyncio.run(scenario()) == (11, 0, 0)


def test_unknown_check_name_is_bad_input():
    with pytest.raises(InputError, match="--check speed: unknown check"):
        check_names(["dates", "speed"])
    assert check_names(["reset", "dates"]) == ("dates", "reset")  # probe order


def test_report_json_lists_every_check_with_status_and_evidence(tmp_path):
    report = probe(build(broken.TopKIgnoringBM25, tmp_path), checks=("top_k", "reset"))
    data = report.to_json()
    assert data["ok"] is False
    assert data["failed"] == ["top_k"]
    assert [(c["name"], c["status"]) for c in data["checks"]] == [
        ("ingest", "passed"),
        ("top_k", "failed"),
        ("reset", "passed"),
    ]
    assert data["ingest"]["sessions"] == 6
    assert data["time_to_searchable_s"] is None  # not measured in this subset


def test_reset_that_wipes_other_conversations_fails_reset(tmp_path):
    report = probe(build(broken.ResetWipesAllBM25, tmp_path), checks=("reset",), deadline_s=0.2)
    assert failed(report) == {"reset"}
    assert report.failures[0].evidence == "reset(A) also emptied B: 'Brimwater' is no longer found"


def test_require_probe_raises_bad_input_naming_the_failed_check(tmp_path):
    with pytest.raises(ProbeFailed) as caught:
        asyncio.run(require_probe(build(broken.CaptionDroppingBM25, tmp_path)))
    message = str(caught.value)
    assert message.startswith(
        "--system bm25: the integration probe failed (captions: 'astrolabe' (only in the caption"
    )
    assert message.endswith("see `locoscore probe`, or rerun with --skip-probe")
    assert isinstance(caught.value, InputError)
    assert caught.value.report.failures[0].name == "captions"


def test_require_probe_returns_the_report_when_every_check_passes(tmp_path):
    report = asyncio.run(require_probe(make_system("bm25", {}, SystemContext(tmp_path))))
    assert report.ok and [c.name for c in report.checks] == ["ingest", *QUICK_CHECKS]
