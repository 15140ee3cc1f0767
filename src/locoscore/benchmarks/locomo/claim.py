"""LoCoMo's parts of the claim card: the headline per question (J when judged, else the
official F1) and the errata ceiling (the share of the folder's questions whose gold answer
stands under dial481/locomo-audit's errata: what a perfect system can score)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from locoscore._io import read_jsonl
from locoscore.benchmarks.locomo.categories import ADVERSARIAL
from locoscore.results.folder import load_summary, row_key
from locoscore.results.layout import SCORES, SUMMARY

HOW_TO_GET_ERRATA = (
    "run `locoscore dataset fetch errata` (or set $LOCOSCORE_ERRATA) and rebuild the report"
)


def _rows(directory: Path) -> list[dict[str, Any]]:
    path = directory / SCORES
    return read_jsonl(path) if path.is_file() else []


def headline_scores(directory: Path) -> tuple[str, dict[str, float]] | None:
    summary = load_summary(directory)
    rows = _rows(directory)
    judge = summary.get("judge")
    if isinstance(judge, dict) and any("j_mean" in r for r in rows):
        with_adv = bool(judge.get("include_adversarial"))
        scores = {
            row_key(r): float(r["j_mean"])
            for r in rows
            if r.get("j_mean") is not None and (with_adv or r.get("category") != ADVERSARIAL)
        }
        return f"J ({judge.get('protocol')})", scores
    if any("f1_locomo" in r for r in rows):
        return "F1 (locomo)", {
            row_key(r): 100 * float(r["f1_locomo"]) for r in rows if r.get("f1_locomo") is not None
        }
    return None


def unscored_questions(directory: Path) -> int:
    """Answered questions whose every judge run failed: a row judged (`j_runs`) whose
    `j_mean` is null."""
    return sum(
        1
        for r in _rows(directory)
        if "j_runs" in r and r.get("j_mean") is None and r.get("prediction") is not None
    )


def errata_ceiling(directory: Path) -> dict[str, Any]:
    """The ceiling on the folder's questions, from the errata summary.json recorded, else
    from the list at hand (`$LOCOSCORE_ERRATA`, the fetched copy) mapped onto the recorded
    data file; else not available, with how to get it."""
    from locoscore.benchmarks.locomo.categories import GROUPS
    from locoscore.benchmarks.locomo.data.errata import ERRATA_SOURCE, ERRATA_TYPES, errata_for
    from locoscore.errors import InputError
    from locoscore.generic.gold_errata import ErrataFlags, gold_ceilings

    summary = load_summary(directory)
    rows = _rows(directory)
    if not rows:
        return {"ceiling": None, "how": "no scored questions in the folder"}
    flags = None
    try:
        if summary.get("errata") is not None:
            section, file = summary["errata"], str(directory / SUMMARY)
            flags = ErrataFlags.from_section(section, file, ERRATA_TYPES)
        else:
            data = summary.get("dataset") or {}
            path = data.get("path") if isinstance(data, dict) else None
            if isinstance(path, str) and Path(path).is_file():
                errata = errata_for(None, Path(path))
                flags = None if errata is None else errata.flags()
    except (InputError, OSError, ValueError):
        flags = None
    if flags is None:
        return {"ceiling": None, "how": HOW_TO_GET_ERRATA}
    judge = summary.get("judge")
    no_adv = isinstance(judge, dict) and not judge.get("include_adversarial")
    ceilings = gold_ceilings(rows, flags, GROUPS)
    chosen = ceilings.overall_without_excluded if no_adv else ceilings.overall_all
    if chosen is None:
        return {"ceiling": None, "how": "no question of the headline in the folder"}
    return {
        "ceiling": chosen.ceiling,
        "n": chosen.n,
        "gold_wrong": chosen.gold_wrong,
        "source": ERRATA_SOURCE,
        "errata_sha256": flags.sha256,
    }
