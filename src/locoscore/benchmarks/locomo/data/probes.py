"""Judge probe sets: deliberately wrong answers for the 1,540 non-adversarial questions.

From dial481/locomo-audit `ap-baseline/` (pinned commit; CC BY-NC 4.0, never shipped): an LLM
given the answer key wrote one wrong answer per question in two styles. `locoscore dataset
fetch probes` downloads both, checks each sha256 and stores them in the user cache beside
the dataset; `locoscore audit` uses them unless given `--probes FILE`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from locoscore._io import write_bytes_atomic
from locoscore.data.user_cache import download_bytes_verified, user_cache_file
from locoscore.errors import InputError

PROBES_COMMIT = "b32288d63afd42af0dc51502d91e1821be34b724"
PROBES_BASE_URL = (
    f"https://raw.githubusercontent.com/dial481/locomo-audit/{PROBES_COMMIT}/ap-baseline"
)


# The verdicts recorded in the pinned files, as published (judge-probes README): % accepted,
# mean over 3 runs; category ids as in the data (4 single-hop, 1 multi-hop, ...).
REFERENCE_JUDGE_MODEL = "gpt-4o-mini"
REFERENCE_JUDGE = (
    "gpt-4o-mini, temperature 0, the generous binary CORRECT/WRONG prompt of the "
    "EverMemOS/Mem0 harnesses, 3 runs (dial481/locomo-audit ap-baseline, commit b32288d)"
)


@dataclass(frozen=True)
class ProbeSource:
    name: str  # the probe set's name (the cached file's stem)
    remote_path: str  # under PROBES_BASE_URL
    sha256: str
    style: str
    reference_overall: float  # published acceptance, %
    reference_by_category: dict[int, float]


PROBE_SOURCES = (
    ProbeSource(
        "specific-but-wrong",
        "v1/ap_eval_results_scored.json",
        "a83882eda3ff02fd04dace6edddd0ceed533a245fedb3069ffde02a9503c4e3a",
        "every core fact shifted to a plausible neighbour, 15-40 words, confident",
        10.61,
        {4: 15.18, 1: 5.91, 2: 3.43, 3: 8.33},
    ),
    ProbeSource(
        "vague-but-topical",
        "v2/ap_eval_results_scored.json",
        "3c32acbdcf667967a4e1f9f541b06566ae5e7361dc92f79f9043af7d068adc6b",
        "generalises away from every checkable detail, 8-20 words, never states the gold",
        62.81,
        {4: 68.53, 1: 44.44, 2: 63.24, 3: 65.28},
    ),
)
PINNED_SHA256 = {source.sha256: source for source in PROBE_SOURCES}


def cached_probes_dir() -> Path:
    return user_cache_file("judge-probes")


def cached_probe_paths() -> list[Path]:
    """The fetched probe files, or an error saying how to get them."""
    paths = [cached_probes_dir() / f"{s.name}.json" for s in PROBE_SOURCES]
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise InputError(
            "no probe sets: run `locoscore dataset fetch probes` or pass --probes FILE",
            file=str(missing[0]),
        )
    return paths


def fetch_probes(
    base_url: str = PROBES_BASE_URL, dest: Path | None = None, timeout: float = 60.0
) -> list[Path]:
    """Download every probe set, verify each sha256, then write them (atomically) together:
    a failed download leaves the cache as it was."""
    dest = dest or cached_probes_dir()
    contents = [
        download_bytes_verified(
            f"{base_url.rstrip('/')}/{s.remote_path}",
            s.sha256,
            manual_option="--probes FILE",
            timeout=timeout,
        )
        for s in PROBE_SOURCES
    ]
    paths = []
    for source, data in zip(PROBE_SOURCES, contents, strict=True):
        path = dest / f"{source.name}.json"
        write_bytes_atomic(path, data)
        paths.append(path)
    return paths
