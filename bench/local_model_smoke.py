"""A smoke test of a local model server as answerer and judge: run -> judge -> audit on a
small subset, through the CLI exactly as a user would, then failures by kind.

    python bench/local_model_smoke.py http://127.0.0.1:8080/v1 smollm2-135m
    python bench/local_model_smoke.py --standin      # against the stand-in llama.cpp
    python bench/local_model_smoke.py --standin --slots 4

The subset: the first --questions questions of one conversation (a copy of the dataset
holding only them, so the run's data is `locomo10-modified`), judged --runs times with the
binary protocol (10 by default, the judge's own: more than a one-slot llama-server takes in
one request), and an audit on the first --questions items of each judge-probe set found
beside the dataset (`judge-probes/`). Prints each step's exit code and its last error line,
then the failed answers and the unscored judge runs by kind; the last line is one JSON
object. Exit 0 when every step exited 0.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DATASET = REPO.parent / "shared" / "data" / "locomo10.json"


def subset_dataset(source: Path, conversation: str, questions: int, out: Path) -> Path:
    data = json.loads(source.read_text(encoding="utf-8"))
    sample = next(s for s in data if s["sample_id"] == conversation)
    sample = {**sample, "qa": sample["qa"][:questions]}
    path = out / "locomo-subset.json"
    path.write_text(json.dumps([sample]), encoding="utf-8")
    return path


def subset_probes(folder: Path, questions: int, out: Path) -> list[Path]:
    paths = []
    for source in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        data = json.loads(source.read_text(encoding="utf-8"))
        details = data.get("detailed_results") or {}
        first = next(iter(details), None)
        if first is None:
            continue
        kept = {first: details[first][:questions]}
        path = out / source.name
        path.write_text(json.dumps({**data, "detailed_results": kept}), encoding="utf-8")
        paths.append(path)
    return paths


def locoscore(*args: str) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "locoscore", *args, "--no-progress"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    return done.returncode, errors[-1] if errors else ""


def kinds(path: Path, field: str) -> dict[str, int]:
    counter: collections.Counter[str] = collections.Counter()
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            error = json.loads(line).get(field)
            if error:
                counter[str(error).split(":")[0].split(" (")[0]] += 1
    return dict(counter.most_common())


def smoke(url: str, model: str, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    dataset = subset_dataset(args.dataset, args.conversation, args.questions, tmp)
    server = ["--base-url", url, "--model", model, "--provider", "openai-compatible"]
    judge_opts = [*server, "--protocol", "binary", "--runs", str(args.runs)]
    steps: dict[str, tuple[int, str]] = {}
    run_dir = tmp / "run"
    steps["run"] = locoscore(
        "run", "--system", "bm25", "--out", str(run_dir), "--dataset", str(dataset),
        "--answer-provider", "openai-compatible", "--answer-model", model,
        "--answer-base-url", url,
    )  # fmt: skip
    steps["judge"] = locoscore(
        "judge", str(run_dir / "predictions.jsonl"), "--out", str(run_dir),
        "--dataset", str(dataset), *judge_opts,
    )  # fmt: skip
    probes = subset_probes(args.dataset.parent / "judge-probes", args.questions, tmp)
    probe_args = [a for p in probes for a in ("--probes", str(p))]
    steps["audit"] = locoscore(
        "audit", "--out", str(tmp / "audit"), "--dataset", str(args.dataset), *probe_args,
        *judge_opts,
    )  # fmt: skip
    for name, (code, line) in steps.items():
        print(f"{name:>5}: exit {code}{'  ' + line if line else ''}", file=sys.stderr)
    answers = kinds(run_dir / "predictions.jsonl", "error")
    verdicts = kinds(run_dir / "judgments.jsonl", "error")
    print(f"failed answers by kind: {answers or 'none'}", file=sys.stderr)
    print(f"unscored judge runs by kind: {verdicts or 'none'}", file=sys.stderr)
    run = json.loads((run_dir / "run.json").read_text()) if (run_dir / "run.json").exists() else {}
    summary_path = run_dir / "summary.json"
    judge = json.loads(summary_path.read_text()).get("judge") if summary_path.exists() else None
    return {
        "exit": {name: code for name, (code, _) in steps.items()},
        "failed_answers": answers,
        "unscored_judge_runs": verdicts,
        "answer_concurrency": (run.get("answer_calls") or {}).get("concurrency"),
        "answer_server": (run.get("answer") or {}).get("server"),
        "answer_retries": (run.get("answer_calls") or {}).get("retries"),
        # requests made for judgments: more requests than judgments means refused or re-sent
        "judge_calls": {k: (judge or {}).get("calls", {}).get(k) for k in ("made", "judgments")},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", nargs="?", help="the server's OpenAI base URL (…/v1)")
    parser.add_argument("model", nargs="?", help="the model name to ask for")
    parser.add_argument("--standin", action="store_true", help="serve the stand-in llama.cpp")
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--conversation", default="conv-26")
    parser.add_argument("--questions", type=int, default=12)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--slots", type=int, default=1, help="the stand-in's slots (-np)")
    args = parser.parse_args()
    if not args.standin and not (args.url and args.model):
        parser.error("give URL and MODEL, or --standin")
    os.environ.setdefault("OPENAI_API_KEY", "not-needed")
    with tempfile.TemporaryDirectory() as tmp:
        if args.standin:
            from locoscore.testing.llama_server import LlamaConfig, LlamaServer

            with LlamaServer(LlamaConfig(slots=args.slots, service_s=0.02)) as standin:
                figures = smoke(standin.openai_url, "smollm2-135m", args, Path(tmp))
        else:
            figures = smoke(args.url, args.model, args, Path(tmp))
    print(json.dumps(figures))
    return 0 if all(code == 0 for code in figures["exit"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
