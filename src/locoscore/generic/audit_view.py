"""A judge audit (`audit.json`, written by `locoscore audit --out DIR`) shown next to J."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

from locoscore.data.sample import without_sample
from locoscore.generic.folder_analysis import Analysis
from locoscore.report.document import Block, Heading, Paragraph, Table
from locoscore.results.layout import AUDIT_JSON


def _check_shape(document: object) -> dict[str, Any]:
    if not isinstance(document, dict) or not isinstance(document.get("probe_sets"), list):
        raise ValueError("not an audit written by locoscore")
    if not isinstance(document.get("judge"), dict) or "signature" not in document["judge"]:
        raise ValueError("no judge signature")
    for probe_set in document["probe_sets"]:
        if not isinstance(probe_set, dict) or not isinstance(
            (probe_set.get("acceptance") or {}).get("overall"), dict
        ):
            raise ValueError("a probe set without its acceptance")
    return document


def load_audit(directory: Path, *, warn: bool = True) -> dict[str, Any] | None:
    """The folder's audit.json; an unreadable one is skipped with a warning (the rest of
    the report does not depend on it)."""
    path = directory / AUDIT_JSON
    if not path.is_file():
        return None
    try:
        return _check_shape(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        if warn:
            warnings.warn(f"{path}: skipped, cannot read the audit ({exc})", stacklevel=2)
        return None


def _same_judge(a: Analysis, audit: dict[str, Any]) -> str:
    audited = audit["judge"]["signature"]
    if a.judge is None:
        return f"Audited judge: {audited}."
    ours = a.judge.config.get("signature")
    if ours == audited:
        return "The audited judge is the one that produced this folder's J (same signature)."
    if without_sample(ours) == without_sample(audited):
        return (
            "The audited judge is the one that produced this folder's J (same signature but "
            f"for the questions sampled: audit {audited}; J {ours})."
        )
    return (
        "The audit used another judge configuration than this folder's J, so its rates "
        f"describe that judge: audit {audited}; J {ours}."
    )


def audit_summary(a: Analysis) -> dict[str, Any] | None:
    """The `audit` entry of summary.json's report section."""
    audit = load_audit(a.results.path, warn=False)  # audit_blocks warns once
    if audit is None:
        return None
    ours = a.judge.config.get("signature") if a.judge else None
    return {
        "file": AUDIT_JSON,
        "summary_line": audit.get("summary_line"),
        "signature": audit["judge"]["signature"],
        # the judge's configuration: a sample (of the audit or of J) is not another judge
        "same_judge_as_j": ours is not None
        and without_sample(ours) == without_sample(audit["judge"]["signature"]),
    }


def _rate(cell: dict[str, Any]) -> str:
    rate = cell.get("rate")
    ci = cell.get("ci95") or {}
    if rate is None:
        return "–"
    if ci.get("low") is None:
        return f"{rate:.1f}"
    return f"{rate:.1f} [{ci['low']:.1f}, {ci['high']:.1f}]"


def audit_blocks(a: Analysis) -> list[Block]:
    audit = load_audit(a.results.path)
    if audit is None:
        return []
    rows = []
    for s in audit["probe_sets"]:
        cell = s["acceptance"]["overall"]
        reference = (s.get("reference") or {}).get("overall")
        rows.append(
            [
                str(s.get("name")),
                str(s.get("expect") or "(your system)"),
                str(cell.get("n")),
                _rate(cell),
                "–" if reference is None else f"{reference:.2f}",
            ]
        )
    sample = audit.get("sample") if isinstance(audit.get("sample"), dict) else None
    table = Table(
        ["Probe set", "Should", "n", "Accepted % [95 % CI]", "Published reference %"],
        rows,
        numeric=(False, False, True, True, True),
        caption="From audit.json in this folder (`locoscore audit`); details in audit.md."
        + ("" if sample is None else " The published reference is over the whole probe set."),
        subset="" if sample is None else str(sample.get("signature")),
        own_numbers=False,  # the audit's probe sets, not this folder's questions
    )
    return [
        Heading("How lenient is the judge? (judge audit)", 3),
        Paragraph(f"{audit.get('summary_line')}. {_same_judge(a, audit)}"),
        table,
    ]
