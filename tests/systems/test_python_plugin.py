"""`--system python:module:Class`: loading, bad input, per-call errors and the usage hook."""

from __future__ import annotations

import asyncio
import sys
import textwrap
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from locoscore.data.conversation import Query, SessionInput, TurnInput
from locoscore.errors import InputError, SystemCallError
from locoscore.systems.base import MemoryItem, SearchResult, Usage
from locoscore.systems.context import SystemContext
from locoscore.systems.probe import ALL_CHECKS, run_probe
from locoscore.systems.registry import make_system

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

SESSION = SessionInput(
    conversation_id="conv-1",
    index=1,
    date_raw="1:56 pm on 8 May, 2023",
    date_iso="2023-05-08T13:56",
    turns=(TurnInput("Ana", "D1:1", "I love kayaks"),),
    speakers=("Ana",),
)
QUERY = Query("conv-1", "conv-1#3", "kayaks?", 2)

DUCK = """
import re

WORD = re.compile(r"[a-z0-9]+")


class DuckMemory:  # no locoscore import: duck typing
    def __init__(self, options):
        self.options = options
        self.turns = {}

    async def reset(self, conversation_id):
        self.turns[conversation_id] = []

    async def add(self, session):
        for turn in session.turns:
            self.turns.setdefault(session.conversation_id, []).append(
                {"text": turn.render(), "created_at": session.date_iso, "dia_ids": [turn.dia_id]}
            )
        return {"input_tokens": 7, "output_tokens": 2, "cost_usd": 0.001}

    async def finish(self, conversation_id):  # once per conversation: "builds an index"
        return {"input_tokens": 100, "calls": 1}

    async def search(self, query):
        wanted = set(WORD.findall(query.text.lower()))
        items = self.turns.get(query.conversation_id, [])
        ranked = sorted(items, key=lambda i: -len(wanted & set(WORD.findall(i["text"].lower()))))
        return ranked[: query.top_k]
"""


@pytest.fixture
def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], str]:
    """Writes a module into a fresh working directory; returns its (unique) name."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))

    def write(source: str) -> str:
        name = f"user_memory_{uuid.uuid4().hex[:10]}"
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
        return name

    return write


def make(name: str, options: dict[str, str] | None = None, tmp: Path = Path(".")):
    return make_system(name, options or {}, SystemContext(tmp))


def test_example_keyword_memory_passes_every_probe_check(monkeypatch):
    monkeypatch.chdir(EXAMPLES)
    monkeypatch.setattr(sys, "path", list(sys.path))
    system = make("python:my_memory:KeywordMemory", {"min_overlap": "1"})
    report = asyncio.run(run_probe(system, ALL_CHECKS))
    assert report.ok, report.failure_summary()
    assert report.system == "python:my_memory:KeywordMemory"
    assert system.signature_options() == {"min_overlap": "1"}


def test_duck_typed_class_from_the_working_directory_passes_and_reports_usage(user_module):
    name = f"python:{user_module(DUCK)}:DuckMemory"
    report = asyncio.run(run_probe(make(name), ALL_CHECKS))
    assert report.ok, report.failure_summary()
    # six sessions, each reporting 7 tokens in, 2 out, $0.001 through the usage hook, and
    # two conversations finished at 100 tokens in, one call each
    assert report.ingest_usage.input_tokens == 6 * 7 + 2 * 100
    assert report.ingest_usage.output_tokens == 12
    assert report.ingest_usage.cost_usd == pytest.approx(0.006)
    assert report.ingest_usage.calls == 2
    assert ", 242 LLM tokens in / 12 out;" in report.check("ingest").evidence


def test_dict_items_become_memory_items_with_created_at_as_date(user_module):
    system = make(f"python:{user_module(DUCK)}:DuckMemory")

    async def scenario() -> tuple[Usage, SearchResult]:
        await system.reset("conv-1")
        usage = await system.add(SESSION)
        return usage, await system.search(QUERY)

    usage, result = asyncio.run(scenario())
    assert usage == Usage(7, 2, 0.001, 0)
    assert result == SearchResult(
        (MemoryItem("Ana: I love kayaks", None, "2023-05-08T13:56", None, ("D1:1",)),)
    )


def test_options_go_into_the_signature_when_the_class_does_not_say(user_module):
    system = make(f"python:{user_module(DUCK)}:DuckMemory", {"model": "x", "depth": "3"})
    assert system.signature_options() == {"depth": "3", "model": "x"}


BAD_CLASSES = {
    "no_search": (
        "class M:\n    async def reset(self, c): ...\n    async def add(self, s): ...\n",
        "M has no method 'search' (a memory system needs async reset, add, search)",
    ),
    "sync_search": (
        "class M:\n    async def reset(self, c): ...\n    async def add(self, s): ...\n"
        "    def search(self, q): ...\n",
        "M.search must be `async def`",
    ),
    "abstract": (
        "from locoscore.systems.base import MemorySystem\n"
        "class M(MemorySystem):\n    async def reset(self, c): ...\n"
        "    async def add(self, s): ...\n",
        "M does not implement search",
    ),
    "not_a_class": ("M = 3\n", "is not a class"),
    "broken_import": ("import nonexistent_dependency_xyz\n", "failed: ModuleNotFoundError"),
}


@pytest.mark.parametrize("case", sorted(BAD_CLASSES))
def test_bad_class_is_one_line_of_bad_input(case, user_module):
    source, message = BAD_CLASSES[case]
    module = user_module(source)
    with pytest.raises(InputError) as caught:
        make(f"python:{module}:M")
    assert str(caught.value).startswith(f"--system python:{module}:M: ")
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_unknown_module_and_class_name_what_was_looked_for(user_module, tmp_path):
    with pytest.raises(InputError) as caught:
        make("python:no_such_module_xyz:Thing")
    assert str(caught.value) == (
        "--system python:no_such_module_xyz:Thing: no module 'no_such_module_xyz' in this "
        f"environment or in {tmp_path}"
    )
    module = user_module(DUCK)
    with pytest.raises(InputError, match=f"module '{module}' has no 'Missing'"):
        make(f"python:{module}:Missing")
    with pytest.raises(InputError, match="expected python:module:Class"):
        make("python:just_a_module")


STRICT = """

class Strict(DuckMemory):
    def __init__(self, options):
        if options:
            raise ValueError(f"unknown option {sorted(options)[0]}")


class NoArgs(DuckMemory):
    def __init__(self):
        self.turns = {}
"""


def test_constructor_that_rejects_the_options_is_bad_input(user_module):
    module = user_module(DUCK + STRICT)
    with pytest.raises(InputError) as caught:
        make(f"python:{module}:Strict", {"depth": "3"})
    assert str(caught.value) == (
        f"--system python:{module}:Strict: Strict(...) raised ValueError: unknown option depth"
    )
    with pytest.raises(InputError) as caught:
        make(f"python:{module}:NoArgs", {"depth": "3"})
    assert str(caught.value) == "--system-option depth: NoArgs() takes no options"
    assert make(f"python:{module}:NoArgs").options == {}


FAILING = """
class Failing:
    answers_itself = True

    def __init__(self, options, context):
        self.context = context

    async def reset(self, conversation_id):
        pass

    async def add(self, session):
        if session.index == 1:
            raise OSError("disk full\\nmore detail")
        return "lots"

    async def search(self, query):
        if query.question_id.endswith("#3"):
            raise ValueError("boom")
        if query.question_id.endswith("#9"):
            raise PermissionError("key sk-live-SECRET1234 refused")
        if query.top_k == 1:
            return {"items": [{"text": "x", "score": "high"}]}
        return 42
"""


def test_user_errors_become_system_call_errors_naming_the_question(user_module):
    name = f"python:{user_module(FAILING)}:Failing"
    system = make(name)
    with pytest.raises(SystemCallError) as caught:
        asyncio.run(system.search(QUERY))
    error = caught.value
    assert (error.question_id, error.conversation_id, error.call) == (
        "conv-1#3",
        "conv-1",
        "search",
    )
    assert error.reason == "ValueError: boom"
    assert str(error) == f"{name} search (question conv-1#3): ValueError: boom"
    with pytest.raises(SystemCallError) as caught:
        asyncio.run(system.add(SESSION))
    assert str(caught.value) == f"{name} add (conversation conv-1): OSError: disk full"


def test_secrets_in_user_errors_are_scrubbed(user_module):
    system = make(f"python:{user_module(FAILING)}:Failing")
    with pytest.raises(SystemCallError) as caught:
        asyncio.run(system.search(Query("conv-1", "conv-1#9", "q", 2)))
    assert caught.value.reason == "PermissionError: key [redacted] refused"
    assert "SECRET1234" not in str(caught.value)


def test_wrong_return_shapes_are_system_call_errors(user_module):
    name = f"python:{user_module(FAILING)}:Failing"
    system = make(name)
    second = SessionInput("conv-1", 2, None, None, ())
    with pytest.raises(
        SystemCallError, match=r"add \(conversation conv-1\): returned str; expected None, a Usage"
    ):
        asyncio.run(system.add(second))
    with pytest.raises(SystemCallError, match="returned int; expected a SearchResult"):
        asyncio.run(system.search(Query("conv-1", "conv-1#4", "q", 5)))
    with pytest.raises(SystemCallError, match="item 1 score 'high' is not a number or null"):
        asyncio.run(system.search(Query("conv-1", "conv-1#5", "q", 1)))


def test_class_flags_carry_over_to_the_adapter(user_module):
    system = make(f"python:{user_module(FAILING)}:Failing")
    assert system.answers_itself is True
    assert system.ignores_budget is False


def test_usage_hook_rejects_unknown_keys_and_negative_counts(user_module):
    from locoscore.systems.python_plugin import _BadShape, to_usage

    assert to_usage(None) == Usage()
    assert to_usage({"input_tokens": 5, "calls": 1}) == Usage(5, 0, None, 1)
    assert to_usage({"embedding_tokens": 40, "cost_usd": 0.5}) == Usage(0, 0, 0.5, 0, 40)
    with pytest.raises(_BadShape, match="unknown key 'tokens'"):
        to_usage({"tokens": 5})
    with pytest.raises(_BadShape, match="output_tokens -1 is not a non-negative integer"):
        to_usage({"output_tokens": -1})
