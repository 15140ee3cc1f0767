"""The built-in judge prompt variants a panel can name, so one model can sit on a panel:

- `locoscore`: the benchmark's own default judge (what `locoscore judge` uses);
- `official`: the benchmark's published grading rules, in our own words or read from the
  official files (`Benchmark.official_judge_template`; a benchmark without one refuses the
  name, saying why: `Benchmark.no_official_judge`);
- `strict`: the candidate must give the reference's answer and nothing that competes with it;
- `lenient`: the reference's answer anywhere in the candidate is enough.

Anything else names a template file (placeholders {question} {gold} {prediction}), read
relative to the panel file. `ACCEPTS` says in one line what each built-in variant accepts;
the report and the docs show it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from locoscore.errors import InputError
from locoscore.judge.prompts import GRADED, PromptTemplate, load_template

ACCEPTS: dict[str, str] = {
    "locoscore": "what the benchmark's default judge accepts (`locoscore judge` without a "
    "panel: the same fact in any wording; vague or hedged answers fail)",
    "official": "the benchmark's published grading rules, restated in locoscore's words or "
    "read from the official files",
    "strict": "only the reference's answer itself (any wording, case or date format); a long "
    "reply that also says other things, a list of options or a hedge fails",
    "lenient": "any reply that contains the reference's answer, however long, unless it also "
    "gives a contradicting answer",
}

_FRAME = (
    """You check an answer a chat assistant gave about a past conversation against the \
reference answer.

Question category: {category}
"""
    + GRADED
    + """\

How to decide: RULE

VERDICT
REPLY"""
)

_RULES = {
    "strict": "the candidate passes only when it gives the reference's answer and nothing else "
    "of substance. Wording, case and date format may differ; but a long reply that contains "
    "the answer among other statements, a list of options that includes it, a hedge, or an "
    "extra detail the reference does not have fails.",
    "lenient": "the candidate passes when the reference's answer appears anywhere in it, "
    "however long the reply and whatever else it says, unless it also states an answer that "
    "contradicts the reference. It fails when the answer is absent or the candidate declines "
    "to answer.",
}
_VERDICT = {
    "binary": "Say CORRECT when the candidate passes, else WRONG.",
    "rubric": "Score 100 when the candidate passes, 0 when it does not.",
}
_REPLY = {
    "binary": 'Reply with JSON: {"label": "CORRECT" or "WRONG", "explanation": "<one short '
    'sentence>"}',
    "rubric": 'Reply with JSON: {"score": <integer 0-100>, "explanation": "<one or two '
    'sentences>"}',
}


def rule_template(name: str, rule: str, protocol: str) -> PromptTemplate:
    """A whole judge prompt from one rule sentence, for either protocol (a benchmark's
    `official` variant is written with it too)."""
    if protocol not in _VERDICT:
        raise InputError(f"unknown judge protocol {protocol!r} (expected rubric or binary)")
    text = (
        _FRAME.replace("RULE", rule.strip())
        .replace("VERDICT", _VERDICT[protocol])
        .replace("REPLY", _REPLY[protocol])
    )
    return PromptTemplate(protocol, text, name=f"panel-{name}-{protocol}")  # type: ignore[arg-type]


def variant_template(
    spec: str,
    protocol: str,
    *,
    official: Callable[[str], PromptTemplate | None],
    benchmark: str,
    base: Path,
    no_official: str = "it declares no official judge prompt",
) -> PromptTemplate | None:
    """The template a panel judge's `template` names (None: the benchmark's default).
    `no_official`: why the benchmark has no `official` variant (the refusal says it)."""
    if spec == "locoscore":
        return None
    if spec == "official":
        template = official(protocol)
        if template is None:
            raise InputError(
                f"--benchmark {benchmark} has no 'official' judge variant: {no_official}",
                field="template",
            )
        return template
    if spec in _RULES:
        return rule_template(spec, _RULES[spec], protocol)
    path = Path(spec).expanduser()
    path = path if path.is_absolute() else base / path
    if not path.is_file():
        raise InputError(
            f"unknown template {spec!r}: not a built-in variant ({', '.join(ACCEPTS)}) and no "
            f"such file ({path})",
            field="template",
        )
    return load_template(path, protocol)


__all__ = ["ACCEPTS", "rule_template", "variant_template"]
