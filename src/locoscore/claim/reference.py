"""A floor or ceiling folder beside a result: the same benchmark, data and questions (else
bad input naming the difference), and the paired test on the questions both scored.

The test is the board's and `compare`'s: per-question differences of the headline (0-100),
a two-sided Wilcoxon signed-rank p-value and a paired bootstrap 95 % interval of the mean
difference. A result is "above the floor" when the mean difference is positive and
p < alpha; "below the ceiling" likewise.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from locoscore.errors import InputError

if TYPE_CHECKING:
    from locoscore.claim.benchmark import ClaimedBenchmark

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0


def _system(folder: Any) -> str | None:
    from locoscore.claim.parts import section

    name = section(folder.run, "system", "name")
    return name if isinstance(name, str) else None


def same_questions(role: str, directory: Path, bench: ClaimedBenchmark, card: dict[str, Any],
                   ids: list[str]) -> Any:  # fmt: skip
    """The reference folder, read, when it is of the result's benchmark, data file and
    question set; else bad input naming the first difference."""
    from locoscore.claim.parts import read_folder
    from locoscore.results.folder import recorded_benchmark_name

    option = f"--{role}"
    other = read_folder(directory)
    # a folder that records no benchmark predates the field: its data file decides below
    theirs = recorded_benchmark_name(directory) or bench.name
    if theirs not in (bench.name, bench.source):
        raise InputError(
            f"is a {theirs} folder, the result is {bench.name}: not the same benchmark",
            file=str(directory),
            field=option,
        )
    ours_sha, their_sha = card["benchmark"]["sha256"], other.data().get("sha256")
    if ours_sha != their_sha:
        raise InputError(
            f"other data file (sha256 {str(their_sha)[:12]}, the result's {str(ours_sha)[:12]})",
            file=str(directory),
            field=option,
        )
    their_ids = set(other.question_ids())
    if their_ids != set(ids):
        missing, extra = set(ids) - their_ids, their_ids - set(ids)
        detail = "; ".join(
            part
            for part in (
                f"{len(missing)} of the result's questions missing (e.g. {sorted(missing)[0]})"
                if missing
                else "",
                f"{len(extra)} others (e.g. {sorted(extra)[0]})" if extra else "",
            )
            if part
        )
        raise InputError(f"other question set: {detail}", file=str(directory), field=option)
    return other


def reference_section(
    role: str,
    directory: Path,
    bench: ClaimedBenchmark,
    card: dict[str, Any],
    ids: list[str],
    headline: tuple[str, dict[str, float]] | None,
    alpha: float,
) -> dict[str, Any]:
    """The card's `floor` or `ceiling`: its score and the paired test of the result on it."""
    from locoscore import stats

    other = same_questions(role, directory, bench, card, ids)
    theirs = bench.headline_scores(directory)
    if headline is None or theirs is None:
        which = "the result" if headline is None else f"--{role} {directory}"
        raise InputError(f"{which} is not scored yet: no headline to test", field=f"--{role}")
    if theirs[0] != headline[0]:
        raise InputError(
            f"scored on {theirs[0]}, the result on {headline[0]}: not the same headline",
            file=str(directory),
            field=f"--{role}",
        )
    ours, ref = headline[1], theirs[1]
    shared = sorted(set(ours) & set(ref))
    if not shared:
        raise InputError("no question scored in both folders", file=str(directory))
    # rounded: scores scaled to 0-100 must not have their ties broken by float noise
    differences = [round(ours[q] - ref[q], 9) for q in shared]
    interval = stats.bootstrap_mean_ci(
        differences, resamples=BOOTSTRAP_RESAMPLES, seed=BOOTSTRAP_SEED
    )
    p = stats.wilcoxon_signed_rank(differences).p_value
    difference = sum(differences) / len(differences)
    significant = p < alpha
    return {
        "folder": str(directory),
        "system": _system(other),
        "score": sum(ref[q] for q in shared) / len(shared),
        "n": len(shared),
        "difference": difference,
        "ci95": [interval.low, interval.high],
        "p": p,
        "alpha": alpha,
        "test": "paired Wilcoxon signed-rank (two-sided) on the questions both scored",
        "above": difference > 0 and significant,
        "below": difference < 0 and significant,
    }


def blind_floors(summary: dict[str, Any], score: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The benchmark's own blind baselines summary.json records (`floors.blind`), each with
    whether the result's mean is above it (no per-question test: they are recorded as
    means)."""
    floors = summary.get("floors")
    listed = floors.get("blind") if isinstance(floors, dict) else None
    out = []
    mean = None if score is None else score.get("mean")
    for entry in listed if isinstance(listed, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("score"), int | float):
            continue
        value = float(entry["score"])
        out.append(
            {
                "name": entry.get("name"),
                "description": entry.get("description"),
                "score": value,
                "n": entry.get("n"),
                "result_above": None if mean is None else mean > value,
            }
        )
    return out
