"""What a benchmark object must provide, checked when it is loaded: a plug-in missing a part
is refused at once with one line naming every missing part, not by a traceback three
commands later (`report` reading `description`, `judge` reading `judge_rules`).

Required of every benchmark: `name`, `description`, `types`. `judge_rules` when `commands`
holds `judge`, unless the benchmark judges its own way (`judge` or `judge_command`
overridden); `metric` when it takes `run` but no judge and has no `score_run` of its own
(else nothing would score a run; a judged benchmark may have no lexical metric). Data
(`data` inline, or `load` overridden) is optional: without it every command needs
`--dataset FILE`.
"""

from __future__ import annotations

from typing import Any

from locoscore.benchmarks.base import Benchmark, QuestionType
from locoscore.errors import InputError

# (attribute, what it must be): the how-to's table of required parts is this list
REQUIRED: tuple[tuple[str, str], ...] = (
    ("name", "a non-empty string: how --benchmark, folders and signatures name it"),
    ("description", "a non-empty string: the title line of its reports"),
    ("types", "a non-empty tuple of QuestionType, with distinct ids and keys"),
)


def _overrides(bench: Benchmark, hook: str) -> bool:
    return getattr(type(bench), hook) is not getattr(Benchmark, hook)


def contract_problems(bench: Benchmark) -> list[str]:
    """Each part `bench` lacks or gets wrong, one phrase each (none: the contract holds)."""
    out: list[str] = []
    for attribute in ("name", "description"):
        value = getattr(bench, attribute, None)
        if not isinstance(value, str) or not value.strip():
            out.append(f"`{attribute}` (a non-empty string)")
    types: Any = getattr(bench, "types", None)
    if (
        not isinstance(types, tuple)
        or not types
        or not all(isinstance(t, QuestionType) for t in types)
    ):
        out.append("`types` (a non-empty tuple of QuestionType)")
    else:
        ids, keys = [t.id for t in types], [t.key for t in types]
        if len(set(ids)) < len(ids) or len(set(keys)) < len(keys):
            out.append("`types` with distinct ids and keys")
    takes_judge = "judge" in getattr(bench, "commands", frozenset())
    own_judge = _overrides(bench, "judge") or _overrides(bench, "judge_command")
    if takes_judge and getattr(bench, "judge_rules", None) is None and not own_judge:
        out.append("`judge_rules` (a generic.parts.JudgeRules), or `judge` left out of `commands`")
    scored = getattr(bench, "metric", None) is not None or _overrides(bench, "score_run")
    if "run" in getattr(bench, "commands", frozenset()) and not scored and not takes_judge:
        out.append("`metric` (a generic.parts.Metric): without it or a judge nothing is scored")
    return out


def check_contract(bench: Benchmark, where: str) -> None:
    """Refuse `bench` (loaded from `where`) in one line when its contract does not hold."""
    problems = contract_problems(bench)
    if problems:
        raise InputError(
            f"{where}: the benchmark lacks {'; '.join(problems)} "
            "(docs/how-to/adding-a-benchmark.md lists every required part)",
            field="--benchmark",
        )
