"""A floor or ceiling folder beside a result: the same benchmark, data and questions (else
bad input naming the difference), and the paired test on the questions both scored.

A floor is a `no-memory` run, a ceiling a `gold-evidence` run (as their run.json records
the system), each with the result's answer step (provider, model, prompt) and, when the
result is judged, its judge (signature, sample aside): otherwise the reference measures
something else, and the option is bad input naming what differs. A result whose system
answers itself has no answer step to match.

The test: per-question differences of the headline (0-100), a two-sided Wilcoxon
signed-rank p-value, exact up to `stats.EXACT_SIGNED_RANK_MAX_N` non-zero differences (the
normal approximation above), and a paired bootstrap 95 % interval of the mean difference.
A result is "above the floor" when the mean difference is positive and p < alpha; "below
the ceiling" likewise.
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


# The system each reference must be a run of.
REFERENCE_SYSTEM = {"floor": "no-memory", "ceiling": "gold-evidence"}
_ANSWER_STEP = (("provider", "provider"), ("model", "model"), ("prompt_hash", "prompt"))


def _judge_signature(folder: Any) -> str | None:
    from locoscore.data.sample import without_sample

    signature = (folder.judge or {}).get("signature")
    return without_sample(signature) if isinstance(signature, str) else None


def same_method(role: str, directory: Path, result: Any, other: Any) -> None:
    """Refuse, as bad input naming the first difference, a reference that is not a run of
    its reference system with the result's answer step and judge."""
    from locoscore.claim.parts import section

    option = f"--{role}"
    wanted, system = REFERENCE_SYSTEM[role], _system(other)
    if system != wanted:
        raise InputError(
            f"is a run of {system or 'no recorded system'}: a {option} is a {wanted} run",
            file=str(directory),
            field=option,
        )
    if not section(result.run, "system", "answers_itself"):
        ours, theirs = section(result.run, "answer") or {}, section(other.run, "answer") or {}
        for key, name in _ANSWER_STEP:
            if ours.get(key) != theirs.get(key):
                raise InputError(
                    f"other answer step: {name} {theirs.get(key)!r}, the result's "
                    f"{ours.get(key)!r}",
                    file=str(directory),
                    field=option,
                )
    ours_judge, their_judge = _judge_signature(result), _judge_signature(other)
    if ours_judge is not None and ours_judge != their_judge:
        raise InputError(
            "not judged, the result is"
            if their_judge is None
            else f"other judge: {their_judge}, the result's {ours_judge}",
            file=str(directory),
            field=option,
        )


def same_questions(role: str, directory: Path, bench: ClaimedBenchmark, card: dict[str, Any],
                   ids: list[str], other: Any = None) -> Any:  # fmt: skip
    """The reference folder, read, when it is of the result's benchmark, data file and
    question set; else bad input naming the first difference."""
    from locoscore.claim.parts import read_folder
    from locoscore.results.folder import recorded_benchmark_name

    option = f"--{role}"
    other = other if other is not None else read_folder(directory)
    # a folder that records no benchmark predates the field: its data file decides below
    theirs = recorded_benchmark_name(other.path) or bench.name
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
    result: Any,
    headline: tuple[str, dict[str, float]] | None,
    alpha: float,
    rederived: Path | None = None,
) -> dict[str, Any]:
    """The card's `floor` or `ceiling`: its score and the paired test of the result on it.
    Its numbers are read from `rederived` (the folder as `verify` recomputed it) when
    given; every message names `directory`, the folder given."""
    from locoscore import stats
    from locoscore.claim.parts import read_folder

    source = rederived or directory
    other = read_folder(source)
    # what it is over first (benchmark, data file, questions), then how it was made
    same_questions(role, directory, bench, card, result.question_ids(), other)
    same_method(role, directory, result, other)
    theirs = bench.headline_scores(source)
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
    test, test_name = stats.paired_signed_rank(differences)
    difference = sum(differences) / len(differences)
    significant = test.p_value < alpha
    return {
        "folder": str(directory),
        "system": _system(other),
        "score": sum(ref[q] for q in shared) / len(shared),
        "n": len(shared),
        "difference": difference,
        "ci95": [interval.low, interval.high],
        "p": test.p_value,
        "alpha": alpha,
        "test": f"paired {test_name}, two-sided",
        "test_n": test.n_nonzero,
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
