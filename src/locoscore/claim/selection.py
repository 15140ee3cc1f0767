"""The selection on the claim card: which questions the headline is over, as the folder
records it (`data.selection`), and the questions a judge's own sample keeps."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from locoscore.claim.parts import question_id, section

if TYPE_CHECKING:
    from locoscore.claim.parts import Folder


def judged_questions(folder: Folder) -> tuple[list[str], list[dict[str, Any]] | None]:
    """The folder's questions and prediction lines, kept to the judge's own sample when the
    judge drew one of a run's answers (`judge --limit` of a whole run: the headline is over
    that sample, not over every answer)."""
    ids, records = folder.question_ids(), folder.predictions
    drawn = section(folder.judge, "sample")
    if not isinstance(drawn, dict) or isinstance(section(folder.run, "sample"), dict):
        return ids, records
    chosen = {str(i) for i in drawn.get("question_ids") or ()}
    kept = None if records is None else [r for r in records if question_id(r) in chosen]
    return [i for i in ids if i in chosen], kept


def selection_text(selection: dict[str, Any]) -> str:
    """The card's line: the selection's signature, its questions and their ids' hash."""
    signature = str(selection["signature"])
    how = "the whole benchmark" if signature == "all" else signature
    ids = str(selection["questions_sha256"])[:12]
    named = "" if ids in signature else f", ids sha256 {ids}"  # `answers:K@H` names it
    recorded = "" if selection.get("recorded") else "; conversations not recorded (older run)"
    return f"{how} ({selection['questions']:,} questions{named}{recorded})"
