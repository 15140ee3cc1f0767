"""`verify --rejudge N`: judge a seeded sample of the folder's questions again, with the judge
the folder records, and measure how often the new verdict is the stored one.

What it catches: verdicts edited after the judge wrote them, and a judge that is not what the
folder says (another model or prompt behind the recorded endpoint). What it cannot: a judge
endpoint that still answers as the forged verdicts say (it is asked again, and believed).

- **Which questions.** The N questions with a stored verdict that rank first by
  sha256("<seed>:<question id>") (`data.sample`'s ranking, unstratified), so the same N and
  seed pick the same questions every time.
- **Which judge.** The folder's `judge` section: provider, model, endpoint (its URL unless it
  was the provider's default), protocol, runs, temperature, API version, max tokens and the
  prompt (a built-in, a panel variant or the benchmark's own, by its recorded name; its hash
  must match the recorded one, or nothing is judged).
- **Real calls.** The questions are judged by the benchmark's own judge command into a fresh
  temporary folder, without the user-level cache: no verdict is served back from the folder
  being checked (a cache never serves a verdict made elsewhere).
- **Agreement.** A question agrees when its new verdict (score >= 50: right) is its stored
  one; a question the judge gives no verdict now counts as not agreeing. The share comes
  with its Wilson 95 % interval; below `--min-agreement` the gate fails. A server that now
  names other models than the folder records is said on the gate's line.
"""

from __future__ import annotations

import dataclasses
import io
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from locoscore._io import sha256_text
from locoscore.errors import InputError
from locoscore.results.layout import PREDICTIONS

if TYPE_CHECKING:
    from locoscore.benchmarks.base import Benchmark
    from locoscore.benchmarks.calls import JudgeCall, Terminal

DEFAULT_MIN_AGREEMENT = 0.9
DEFAULT_REJUDGE_SEED = 0
_Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = _Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial share (95 % by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class Rejudged:
    questions: int  # re-judged
    agreed: int
    without_verdict: int  # no verdict now: counted as not agreeing
    disagreeing: list[str]  # question ids
    min_agreement: float
    judge: str  # the signature of the judge asked again
    served_note: str | None = None  # the server now names other models than it recorded

    @property
    def share(self) -> float:
        return self.agreed / self.questions if self.questions else 0.0

    @property
    def passed(self) -> bool:
        return self.questions > 0 and self.share >= self.min_agreement

    def line(self) -> str:
        low, high = wilson_interval(self.agreed, self.questions)
        head = (
            f"re-judged {self.questions} question(s): {self.agreed}/{self.questions} verdicts "
            f"agree ({100 * self.share:.1f} %, Wilson 95 % [{100 * low:.1f}, {100 * high:.1f}]),"
            f" threshold {100 * self.min_agreement:.1f} %"
        )
        if self.without_verdict:
            head += f"; {self.without_verdict} without a verdict now"
        if self.served_note:
            head += f"; {self.served_note}"
        if self.disagreeing:
            shown = ", ".join(self.disagreeing[:5])
            more = f" and {len(self.disagreeing) - 5} more" if len(self.disagreeing) > 5 else ""
            head += f"; differ: {shown}{more}"
        return head


def pick(question_ids: list[str], n: int, seed: int) -> list[str]:
    """The `n` ids ranked first by sha256("<seed>:<id>")."""
    ranked = sorted(question_ids, key=lambda q: (sha256_text(f"{seed}:{q}"), q))
    return ranked[:n]


def _part(signature: str, name: str) -> str | None:
    for part in signature.split("|"):
        key, _, value = part.partition(":")
        if key == name:
            return value
    return None


def _template(bench: Benchmark, name: str | None, protocol: str) -> Any:
    """The recorded prompt, by its name: the benchmark's default (None), a panel variant or
    the benchmark's `official` one."""
    from locoscore.judge.panel.variants import variant_template

    if isinstance(name, str) and name.startswith("panel-"):
        variant = name.removeprefix("panel-").rsplit("-", 1)[0]
        official = bench.official_judge_template(protocol)
        if official is not None and official.name == name:
            return official
        try:
            return variant_template(
                variant, protocol, official=bench.official_judge_template,
                benchmark=bench.name, base=Path("."),
            )  # fmt: skip
        except InputError:
            return None
    return None


def recorded_settings(bench: Benchmark, judge: dict[str, Any], folder: Path) -> Any:
    """The judge settings the folder's `judge` section records, to ask it again."""
    from locoscore.judge.settings import JudgeSettings

    def need(key: str) -> Any:
        value = judge.get(key)
        if value is None:
            raise InputError("records no judge " + key, file=str(folder / "summary.json"))
        return value

    signature = str(judge.get("signature") or "")
    endpoint = judge.get("endpoint") or {}
    protocol = str(need("protocol"))
    max_tokens = _part(signature, "max_tokens")
    return JudgeSettings(
        protocol=protocol,
        provider=str(need("provider")),
        model=str(need("model")),
        base_url=None if endpoint.get("default", True) else endpoint.get("url"),
        runs=int(need("runs")),
        temperature=judge.get("temperature"),
        api_version=judge.get("api_version"),
        max_tokens=int(max_tokens) if max_tokens and max_tokens.isdigit() else 256,
        template=_template(bench, judge.get("prompt_name"), protocol),
        include_adversarial=_part(signature, "adv") == "yes",
        signs_exclusion=_part(signature, "adv") is not None,
        concurrency=8,
    )


def answers_of(folder: Path, summary: dict[str, Any]) -> Path:
    """The answers the folder's verdicts are of: its own predictions, else the file its judge
    (or its panel) recorded reading."""
    if (folder / PREDICTIONS).is_file():
        return folder / PREDICTIONS
    for section in ("answers", "input"):
        path = (summary.get(section) or {}).get("path")
        if isinstance(path, str) and Path(path).is_file():
            return Path(path)
    judged = ((summary.get("judge") or {}).get("input") or {}).get("path")
    if isinstance(judged, str) and Path(judged).is_file():
        return Path(judged)
    raise InputError(
        "cannot re-judge: the answers are neither in the folder nor at the path it records",
        file=str(folder),
        field="--rejudge",
    )


def _call(bench: Benchmark, folder: Path, out: Path, ids: list[str], dry_run: bool) -> JudgeCall:
    from locoscore.benchmarks.calls import JudgeCall
    from locoscore.claim.parts import read_folder
    from locoscore.data.sample import QuestionSample, SampleSpec

    read = read_folder(folder)
    summary, judge = read.summary, read.judge
    if judge is None:
        raise InputError("not judged: no verdict to re-judge", file=str(folder), field="--rejudge")
    settings = recorded_settings(bench, judge, folder)
    data = read.data()
    path = data.get("path") or data.get("file")
    dataset = Path(path) if isinstance(path, str) and Path(path).is_file() else None
    request = QuestionSample(SampleSpec(len(ids)), "rejudge", len(ids), {}, frozenset(ids))
    return JudgeCall.of_folder(
        answers_of(folder, summary),
        out,
        settings,
        dataset,
        request,
        dry_run=dry_run,
        max_unscored=1.0,
    )


def _quiet(t: Terminal, estimates: list[Any]) -> Terminal:
    from rich.console import Console

    def estimate(result: Any, *args: Any, **kwargs: Any) -> None:
        estimates.append(result)

    quiet = Console(file=io.StringIO())
    return dataclasses.replace(t, out=quiet, err=quiet, estimate=estimate)


def rejudge(
    folder: Path,
    bench: Benchmark,
    t: Terminal,
    *,
    n: int,
    seed: int = DEFAULT_REJUDGE_SEED,
    min_agreement: float = DEFAULT_MIN_AGREEMENT,
    dry_run: bool = False,
) -> Rejudged | str:
    """The agreement of `n` re-judged questions with the stored verdicts; on a dry run, the
    line saying what it would cost (nothing is judged)."""
    stored = {q.question_id: q.verdict for q in bench.judged_questions(folder)}
    stored_ids = [q for q, v in stored.items() if v is not None]
    if not stored_ids:
        raise InputError("no stored verdict to re-judge", file=str(folder), field="--rejudge")
    ids = pick(stored_ids, n, seed)
    recorded = str((_summary_judge(folder) or {}).get("prompt_hash"))
    with tempfile.TemporaryDirectory(prefix="locoscore-rejudge-") as tmp:
        out = Path(tmp) / "rejudge"
        estimates: list[Any] = []
        bench.judge_command(_call(bench, folder, out, ids, True), _quiet(t, estimates))
        if estimates and estimates[0].judge.prompt_hash != recorded:
            raise InputError(
                f"cannot re-judge: the recorded judge prompt (hash {recorded}) is not one "
                f"locoscore can rebuild (it rebuilt {estimates[0].judge.prompt_hash})",
                file=str(folder),
                field="--rejudge",
            )
        if dry_run:
            return _dry_run_line(ids, estimates)
        bench.judge_command(_call(bench, folder, out, ids, False), _quiet(t, []))
        again = {q.question_id: q.verdict for q in bench.judged_questions(out)}
        now = _summary_judge(out) or {}
        signature = str(now.get("signature"))
        then = ((_summary_judge(folder) or {}).get("served") or {}).get("models")
        served = (now.get("served") or {}).get("models")
        note = (
            f"the server now says it is {', '.join(served)} (the folder records {', '.join(then)})"
            if served and then and sorted(served) != sorted(then)
            else None
        )
    without = [q for q in ids if again.get(q) is None]
    differ = [q for q in ids if again.get(q) is not None and again[q] != stored[q]]
    agreed = len(ids) - len(without) - len(differ)
    return Rejudged(len(ids), agreed, len(without), differ, min_agreement, signature, note)


def _summary_judge(folder: Path) -> dict[str, Any] | None:
    from locoscore.results.folder import load_summary

    judge = load_summary(folder).get("judge")
    return judge if isinstance(judge, dict) else None


def _dry_run_line(ids: list[str], estimates: list[Any]) -> str:
    from locoscore.report.spend import NO_PRICE

    if not estimates:
        return f"rejudge dry run: {len(ids)} question(s); no estimate of the calls"
    e = estimates[0].estimate
    cost = NO_PRICE if e.cost_usd is None else f"${e.cost_usd:.2f}"
    return (
        f"rejudge dry run: {len(ids)} question(s), {e.calls:,} calls, estimated tokens "
        f"{e.input_tokens:,} in / {e.output_tokens:,} out, estimated cost {cost}"
    )


def rejudge_gate(folder: Path, bench: Benchmark, t: Terminal, **options: Any) -> Any:
    """`verify`'s gate "rejudge": passes when enough re-judged verdicts agree (n/a on a dry
    run, its line then saying the cost)."""
    from locoscore.claim.gates import Gate

    found = rejudge(folder, bench, t, **options)
    if isinstance(found, str):
        return Gate("rejudge", "n/a", found)
    return Gate("rejudge", "pass" if found.passed else "fail", found.line())
