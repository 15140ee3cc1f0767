"""LoCoMo's parts of a judge panel: its judged folder's questions, and its `official` variant.

LoCoMo's paper scores answers by token F1; the LLM-judge numbers published for it follow
the generous right/wrong grading memory-system papers made common (Mem0's "J"). The
`official` variant restates that grading in our own words.
"""

from __future__ import annotations

from pathlib import Path

from locoscore.judge.panel.questions import JudgedQuestion, score_0_100
from locoscore.judge.panel.variants import rule_template
from locoscore.judge.prompts import PromptTemplate
from locoscore.results.layout import SCORES

_OFFICIAL_RULE = (
    "grade generously, as the LLM-judge results published for LoCoMo do. The candidate "
    "passes when it refers to the same thing as the reference, even if it is longer, worded "
    "differently, or adds detail; for a question about time, any format that points to the "
    "same date or period passes, and so does a relative date that resolves to it. It fails "
    "when it names a different thing or time, or gives no answer."
)


def official_template(protocol: str) -> PromptTemplate:
    return rule_template("locomo-official", _OFFICIAL_RULE, protocol)


def judged_questions(directory: Path) -> list[JudgedQuestion]:
    """scores.jsonl of a LoCoMo judge: `sample_id#qa_index`, the category's name, `j_mean`
    (0-100, the mean over the judge's runs)."""
    path = directory / SCORES
    out = []
    for number, row in enumerate(_lines(path), 1):
        score = score_0_100(row.get("j_mean"), path, f"line {number}", "j_mean", 1.0)
        key = f"{row.get('sample_id')}#{row.get('qa_index')}"
        kind = str(row.get("category_name") or row.get("category") or "")
        text = row.get("question")
        out.append(JudgedQuestion(key, kind, score, text if isinstance(text, str) else None))
    return out


def _lines(path: Path) -> list[dict[str, object]]:
    from locoscore.results.answers_file import object_lines

    return [row for _, row in object_lines(path)]
