"""The probe's checks: each takes a ProbeSession (conversations A and B ingested) and returns
(status, evidence), or raises CheckFailed with the evidence. What each checks is listed in
`locoscore.systems.probe`.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from datetime import datetime

from locoscore.data.conversation import Query
from locoscore.errors import LocoscoreError
from locoscore.llm.call_errors import one_line_error
from locoscore.systems.base import MemoryItem, SearchResult, Usage
from locoscore.systems.probe_conversations import (
    PROBE_PREFIX,
    UNKNOWN_CONVERSATION,
    ProbeConversation,
    ProbeFact,
    searchable_fact,
)
from locoscore.systems.probe_report import CheckFailed, Outcome, attempt, fail_on, returned
from locoscore.systems.probe_session import ProbeSession

SEARCH_K = 5
ISOLATION_K = 10


def snippet(text: str, width: int = 70) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= width else flat[: width - 1] + "…")


def _item_hits(result: SearchResult, word: str) -> list[tuple[int, MemoryItem]]:
    """(1-based rank, item) of the items whose text holds `word` (case-insensitive)."""
    needle = word.lower()
    return [
        (rank, item) for rank, item in enumerate(result.items, 1) if needle in item.text.lower()
    ]


def _answer_holds(result: SearchResult, word: str) -> bool:
    return result.answer is not None and word.lower() in result.answer.lower()


def _found(result: SearchResult, word: str) -> bool:
    return bool(_item_hits(result, word)) or _answer_holds(result, word)


def _same_day(returned: str | None, expected: str | None) -> bool:
    """Same calendar day: tolerant of seconds, zones and 'Z', not of another day."""
    if not returned or not expected:
        return False
    try:
        got = datetime.fromisoformat(returned.strip().replace("Z", "+00:00")).date()
        return got == datetime.fromisoformat(expected).date()
    except ValueError:
        return returned.strip()[:10] == expected[:10]


def _dated_in_text(text: str, word: str, date_raw: str | None) -> bool:
    """A chunk running across sessions is dated by the session it starts in; a later
    session inside it brings its date in its header, written before its facts."""
    at = text.lower().find(word.lower())
    return bool(date_raw) and at > 0 and str(date_raw) in text[:at]


def _answer_has_month_year(answer: str, date_iso: str) -> bool:
    day = datetime.fromisoformat(date_iso)
    text = answer.lower()
    year = str(day.year)
    return year in text and (
        day.strftime("%B").lower() in text or f"{year}-{day.month:02d}" in text
    )


def _item_problems(item: object, where: str, known_dia_ids: frozenset[str]) -> list[str]:
    if not isinstance(item, MemoryItem):
        return [f"{where} is {type(item).__name__}, expected MemoryItem"]
    problems = []
    if not isinstance(item.text, str) or not item.text.strip():
        problems.append(f"{where} has empty text")
    score = item.score
    if score is not None and (
        isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score)
    ):
        problems.append(f"{where} score {score!r} is not a finite number or null")
    if item.dia_ids is not None:
        unknown = [d for d in item.dia_ids if d not in known_dia_ids]
        if unknown:
            problems.append(f"{where} names dia_ids {unknown} not in the conversation")
    for field_name in ("date_iso", "date_raw"):
        value = getattr(item, field_name)
        if value is not None and not isinstance(value, str):
            problems.append(f"{where} {field_name} {value!r} is not a string or null")
    if isinstance(item.date_iso, str):
        try:
            datetime.fromisoformat(item.date_iso.replace("Z", "+00:00"))
        except ValueError:
            problems.append(f"{where} date_iso {item.date_iso!r} is not ISO 8601")
    return problems


async def _shapes(p: ProbeSession) -> Outcome:
    problems: list[str] = []
    count = 0
    for fact in p.a.facts:
        result = await p.search(p.a, fact.question, SEARCH_K)
        if not isinstance(result.usage, Usage):
            problems.append(f"usage is {type(result.usage).__name__}, expected Usage")
        if result.answer is not None and not isinstance(result.answer, str):
            problems.append(f"answer is {type(result.answer).__name__}, expected text or null")
        for rank, item in enumerate(result.items, 1):
            count += 1
            problems += _item_problems(item, f"item {rank} of {fact.question!r}", p.a.dia_ids)
    fail_on(problems, 3)
    return "passed", (
        f"{count} items from {len(p.a.facts)} searches: text, score number or null, "
        "dia_ids of the conversation or null, ISO dates or null"
    )


async def _dates(p: ProbeSession) -> Outcome:
    good: list[str] = []
    problems: list[str] = []
    for conv in (p.a, p.b):
        for fact in conv.facts:
            session = conv.session(fact.session_index)
            day = (session.date_iso or "")[:10]
            result = await p.search(conv, fact.question, SEARCH_K)
            hits = _item_hits(result, fact.word)
            if hits:
                rank, item = hits[0]
                if item.date_raw == session.date_raw or _same_day(item.date_iso, session.date_iso):
                    good.append(f"{fact.word} {day}")
                elif _dated_in_text(item.text, fact.word, session.date_raw):
                    good.append(f"{fact.word} {day} (dated in the text)")
                else:
                    problems.append(
                        f"{fact.word!r} (session {session.index}, {day}) came back in item "
                        f"{rank} dated date_iso={item.date_iso!r} date_raw={item.date_raw!r}"
                    )
            elif result.answer is not None or p.answers_itself:
                answer = (await p.search(conv, fact.date_question, SEARCH_K)).answer or ""
                if session.date_iso and _answer_has_month_year(answer, session.date_iso):
                    good.append(f"{fact.word} {day} (answered)")
                else:
                    problems.append(
                        f"{fact.date_question!r} answered {snippet(answer)}, expected the "
                        f"month and year of {day}"
                    )
            else:
                problems.append(
                    f"{fact.word!r} in none of {len(result.items)} items for {fact.question!r}"
                )
    if problems:
        raise CheckFailed("; ".join(problems))
    return "passed", f"{len(good)} facts carry their session's date: {', '.join(good)}"


async def _captions(p: ProbeSession) -> Outcome:
    good: list[str] = []
    problems: list[str] = []
    for conv in (p.a, p.b):
        image = conv.image
        result = await p.search(conv, f"Who shared a photo of the {image.word}?", SEARCH_K)
        hits = _item_hits(result, image.word)
        if hits:
            rank, item = hits[0]
            if item.dia_ids is not None and image.dia_id not in item.dia_ids:
                problems.append(
                    f"{image.word!r} came back in item {rank} from {list(item.dia_ids)}, "
                    f"not the image turn {image.dia_id}"
                )
                continue
            whole = " with the whole caption" if image.caption.lower() in item.text.lower() else ""
            good.append(f"{image.word!r} in item {rank} ({image.dia_id}){whole}")
        elif result.answer is not None or p.answers_itself:
            answer = (await p.search(conv, image.question, SEARCH_K)).answer or ""
            if image.word in answer.lower():
                good.append(f"{image.word!r} in the answer to {image.question!r}")
            else:
                problems.append(f"{image.question!r} answered {snippet(answer)}")
        else:
            problems.append(
                f"{image.word!r} (only in the caption of {image.dia_id} in "
                f"{p.label(conv)}) in none of {len(result.items)} items: caption dropped?"
            )
    if problems:
        raise CheckFailed("; ".join(problems))
    return "passed", "; ".join(good)


async def _isolation(p: ProbeSession) -> Outcome:
    leaks: list[str] = []
    searches = items = 0
    for home, other in ((p.a, p.b), (p.b, p.a)):
        questions = [fact.question for fact in other.facts] + [other.image.question]
        for question in questions:
            result = await p.search(home, question, ISOLATION_K)
            searches += 1
            items += len(result.items)
            for word in other.secret_words:
                for rank, item in _item_hits(result, word):
                    leaks.append(
                        f"search of {p.label(home)} for {question!r} returned "
                        f"{p.label(other)}'s {word!r} in item {rank}: {snippet(item.text)}"
                    )
                if _answer_holds(result, word):
                    leaks.append(
                        f"search of {p.label(home)} for {question!r} answered with "
                        f"{p.label(other)}'s {word!r}"
                    )
    fail_on(leaks, 2)
    return "passed", (
        f"{searches} searches, each conversation for the other's facts, returned {items} "
        "items, none holding the other's words"
    )


async def _ingest_once(p: ProbeSession) -> Outcome:
    """The same item twice in one result means a session was stored twice (re-ingestion,
    or a session added once per speaker)."""
    searches = items = 0
    for conv in (p.a, p.b):
        for fact in conv.facts:
            result = await p.search(conv, fact.question, ISOLATION_K)
            searches += 1
            items += len(result.items)
            seen: set[str] = set()
            for rank, item in enumerate(result.items, 1):
                key = " ".join(item.text.lower().split())
                if key in seen:
                    raise CheckFailed(
                        f"search of {p.label(conv)} for {fact.question!r} returned "
                        f"{snippet(item.text)} twice (again as item {rank}): stored twice?"
                    )
                seen.add(key)
    return "passed", f"{searches} searches returned {items} items, no item twice"


async def _top_k(p: ProbeSession) -> Outcome:
    if getattr(p.system, "ignores_budget", False):
        return "skipped", "the system declares ignores_budget (whole conversation, no top-k)"
    counts = []
    for k in (1, 3):
        result = await p.search(p.a, p.a.facts[0].question, k)
        counts.append(f"top_k={k} gave {len(result.items)}")
        if len(result.items) > k:
            raise CheckFailed(f"top_k={k} returned {len(result.items)} items")
    return "passed", ", ".join(counts)


async def _unknown_conversation(p: ProbeSession) -> Outcome:
    query = Query(UNKNOWN_CONVERSATION, f"{PROBE_PREFIX}unknown", p.a.facts[0].question, SEARCH_K)
    try:
        result = await p.system.search(query)
    except LocoscoreError as exc:
        return "passed", f"clean error: {one_line_error(exc)}"
    except Exception as exc:
        raise CheckFailed(
            f"raised {one_line_error(exc)} (expected no items or a clean LocoscoreError)"
        ) from None
    if returned(result, SearchResult, "search").items:
        raise CheckFailed(
            f"{len(result.items)} items for a conversation never added, first "
            f"{snippet(result.items[0].text)}"
        )
    return "passed", f"no items for {UNKNOWN_CONVERSATION!r}"


async def finish_conversation(p: ProbeSession, cid: str) -> Usage:
    """The run's `finish(conversation_id)` after a conversation's last session."""
    spent = await attempt(f"finish({cid!r})", p.system.finish, cid)
    return returned(spent, Usage, "finish")


async def poll_until_found(
    p: ProbeSession, conv: ProbeConversation, fact: ProbeFact, since: float
) -> tuple[float | None, int]:
    """Search for `fact` until found (seconds since `since`) or the deadline (None); and
    how many searches that took. Pauses grow from 0.05 s to 1 s."""
    polls, pause = 0, 0.05
    while True:
        result = await p.search(conv, fact.question, SEARCH_K)
        polls += 1
        waited = time.monotonic() - since
        if _found(result, fact.word):
            return waited, polls
        if waited >= p.deadline_s:
            return None, polls
        await asyncio.sleep(min(pause, p.deadline_s - waited))
        pause = min(pause * 2, 1.0)


async def _time_to_searchable(p: ProbeSession) -> Outcome:
    session, fact = searchable_fact()
    started = time.monotonic()
    await attempt(f"add(session {session.index} of A)", p.system.add, session)
    await finish_conversation(p, p.a.conversation_id)
    added = time.monotonic()
    waited, polls = await poll_until_found(p, p.a, fact, added)
    searches = f"{polls} search{'es' if polls > 1 else ''}"
    if waited is None:
        raise CheckFailed(
            f"{fact.word!r} not found within {p.deadline_s:g} s of add and finish ({searches})"
        )
    p.report.time_to_searchable_s = waited
    return "passed", (
        f"{fact.word!r} found {waited:.3f} s after add and finish returned (they took "
        f"{added - started:.3f} s; {searches})"
    )


async def _reset(p: ProbeSession) -> Outcome:
    cid = p.a.conversation_id
    await p.reset(cid)
    _, late_fact = searchable_fact()
    words = (*p.a.secret_words, late_fact.word)
    questions = [f.question for f in p.a.facts] + [p.a.image.question, late_fact.question]
    items = 0
    for question in questions:
        result = await p.search(p.a, question, SEARCH_K)
        items += len(result.items)
        left = [word for word in words if _found(result, word)]
        if left:
            raise CheckFailed(f"after reset(A), a search for {question!r} still found {left}")
    kept = p.b.facts[0]
    if not _found(await p.search(p.b, kept.question, SEARCH_K), kept.word):
        raise CheckFailed(f"reset(A) also emptied B: {kept.word!r} is no longer found")
    return "passed", (
        f"after reset(A), {len(questions)} searches of A returned {items} items, none with "
        f"A's facts; B untouched ({kept.word!r} still found)"
    )


async def _attribution(p: ProbeSession) -> Outcome:
    """Items name the turns they came from: what retrieval metrics and the outputs' dataset
    ids are computed from (a system that names none is measured on answers alone)."""
    named = 0
    problems: list[str] = []
    for fact in p.a.facts:
        result = await p.search(p.a, fact.question, SEARCH_K)
        hits = _item_hits(result, fact.word)
        if not hits or hits[0][1].dia_ids is None:
            continue
        named += 1
        rank, item = hits[0]
        if fact.dia_id not in (item.dia_ids or ()):
            problems.append(
                f"{fact.word!r} (turn {fact.dia_id}) came back in item {rank} naming "
                f"{list(item.dia_ids or ())}"
            )
    if problems:
        raise CheckFailed("; ".join(problems[:3]))
    if not named:
        return "skipped", (
            "no item names the turns it came from (dia_ids null): retrieval metrics "
            "cannot be computed for this system"
        )
    return "passed", f"{named} of {len(p.a.facts)} facts came back naming their own turn"


CHECKS: dict[str, Callable[[ProbeSession], Awaitable[Outcome]]] = {
    "attribution": _attribution,
    "shapes": _shapes,
    "dates": _dates,
    "captions": _captions,
    "isolation": _isolation,
    "ingest_once": _ingest_once,
    "top_k": _top_k,
    "unknown_conversation": _unknown_conversation,
    "time_to_searchable": _time_to_searchable,
    "reset": _reset,
}
