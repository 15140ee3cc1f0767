"""`locoscore verify`: a folder's card, its gates and warnings, as lines to print."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from locoscore.claim.gates import Gate, Permissions, Thresholds
from locoscore.results.layout import SUMMARY

if TYPE_CHECKING:
    from locoscore.claim.benchmark import ClaimedBenchmark


@dataclass(frozen=True)
class Verdict:
    card: dict[str, Any]
    gates: list[Gate]
    warnings: list[str]
    unread: str | None = None  # why the card could not be built (the folder was edited)

    @property
    def failed(self) -> list[Gate]:
        return [g for g in self.gates if g.status == "fail"]

    def lines(self, directory: Path) -> list[str]:
        from locoscore.claim.render import card_lines

        out = [f"claim card: {directory}"]
        if self.unread is not None:
            out.append(f"  not built: {self.unread}")
        else:
            out += [f"  {name}: {text}" for name, text in card_lines(self.card)]
        out.append("gates:")
        marks = {"pass": "pass", "fail": "FAIL", "n/a": "n/a "}
        out += [f"  {marks[g.status]} {g.name}: {g.line}" for g in self.gates]
        out += [f"warning: {w}" for w in self.warnings]
        failed = self.failed
        out.append(
            f"verify: {len(failed)} gate(s) failed: {', '.join(g.name for g in failed)}"
            if failed
            else "verify: every gate passes"
        )
        return out


def _rederive_reference(
    directory: Path | None, bench: ClaimedBenchmark, data: Any, scratch: Path
) -> dict[Path, Path]:
    """A floor or ceiling recomputed like the result (its numbers are tested too); none when
    it cannot be (its card then reads it as it stands, and `same_questions` names it)."""
    from locoscore.claim.parts import read_folder
    from locoscore.claim.rederive import rederive

    if directory is None or data is None:
        return {}
    folder = read_folder(directory)
    if folder.data().get("sha256") != data.sha256:
        return {}  # another data file: `same_questions` names it
    scratch.mkdir()
    done = rederive(folder, bench, data, scratch)
    return {} if done.path is None else {directory: done.path}


def verify(
    directory: Path,
    bench: ClaimedBenchmark,
    *,
    floor: Path | None = None,
    ceiling: Path | None = None,
    thresholds: Thresholds | None = None,
    dataset: Path | None = None,
    permissions: Permissions | None = None,
    strict: bool = False,
) -> Verdict:
    """The folder's card (with the paired tests against `floor`/`ceiling`), its gates and
    its warnings, every number recomputed from the folder's records and its data file
    (`claim.rederive`; `dataset`: `--dataset`). Bad input (an unreadable folder, a floor of
    another benchmark, data file, question set, selection, system, answer step or judge)
    raises InputError naming it. `strict`: a folder without a manifest fails the `bound`
    gate (else a warning)."""
    import tempfile

    from locoscore.claim.bound import bound_gate
    from locoscore.claim.card import build_card
    from locoscore.claim.gates import evaluate, warnings_of
    from locoscore.claim.parts import disagreements, read_folder
    from locoscore.claim.rederive import differences, find_data, rederive
    from locoscore.data.selection import refuse_mismatch
    from locoscore.errors import InputError

    t = thresholds or Thresholds()
    allowed = permissions or Permissions()
    for option, other in (("--floor", floor), ("--ceiling", ceiling)):
        if other is not None and (other / SUMMARY).is_file():
            # other questions drawn otherwise (a judge's sample, other conversations) are
            # refused here; the same draw over other ids is named by the card's own check
            refuse_mismatch(
                [directory, other], [str(directory), f"{option} {other}"], drawn_only=True
            )
    bound, unbound = bound_gate(directory, strict=strict)
    try:
        folder = read_folder(directory)
    except InputError as exc:
        if bound.status != "fail":
            raise
        # a file edited so that it no longer reads: the edit is the finding, not bad input
        return Verdict({}, [bound], [], unread=str(exc))
    found = find_data(folder, bench, dataset)
    problems = disagreements(folder, bench)
    with tempfile.TemporaryDirectory(prefix="locoscore-verify-") as tmp:
        scratch = Path(tmp)
        view = folder
        derivation: dict[str, Any] = {"data": found.problem, "problem": None, "not_rederived": []}
        try:
            if found.data is not None:
                (scratch / "result").mkdir()
                done = rederive(folder, bench, found.data, scratch / "result")
                derivation["problem"] = done.problem
                derivation["not_rederived"] = done.not_rederived
                if done.path is not None:
                    problems += differences(folder, done.path)
                    view = read_folder(done.path)
            again = {
                **_rederive_reference(floor, bench, found.data, scratch / "floor"),
                **_rederive_reference(ceiling, bench, found.data, scratch / "ceiling"),
            }
            card = build_card(
                view.path,
                bench,
                floor=floor,
                ceiling=ceiling,
                alpha=t.alpha,
                folder=view,
                rederived=again,
            )
        except InputError as exc:
            if bound.status != "fail":
                raise
            return Verdict({}, [bound], [], unread=str(exc))
    card["derivation"] = derivation
    card["allowed"] = {"fake": allowed.fake, "self_judge": allowed.self_judge}
    gates = evaluate(card, problems, t, allowed)
    return Verdict(card, [*gates, bound], [*unbound, *warnings_of(card)])


def compare_lines(folders: list[Path], bench: ClaimedBenchmark) -> list[str]:
    """`compare`'s claim lines: the card lines that differ between the folders, named A, B,
    ... as compare names them (none when the cards agree; one line saying why when a card
    cannot be read: the comparison itself stands)."""
    from locoscore.claim.card import build_card
    from locoscore.claim.render import differing_lines
    from locoscore.errors import InputError

    try:
        cards = [(chr(ord("A") + i), build_card(f, bench)) for i, f in enumerate(folders)]
    except InputError as exc:
        return [f"claim cards not compared: {exc}"]
    lines = differing_lines(cards)
    return ["claim card lines that differ:", *(f"  {line}" for line in lines)] if lines else []
