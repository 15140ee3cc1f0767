"""The official LoCoMo-Plus prompt texts, read from the official repository's own files;
locoscore never ships them (the repository states no licence).

Two files of xjtuleeyf/Locomo-Plus hold them:

- `evaluation_framework/task_eval/utils.py`: `CONV_START_PROMPT` (the line every model input
  opens with, the judge's included) and `INSTRUCTION_COGNITIVE` (the task instruction of a
  Cognitive item);
- `evaluation_framework/task_eval/prompt.py`: `PROMPT_TEMPLATES["Cognitive"]`, the judge
  template.

They are read as Python source with `ast`: string constants only, nothing is executed.

Where they come from, in this order:

1. a local copy of the repository given by path (`--dataset PATH`, the repository's root:
   its `data/` holds the data files): checked by structure (the names are there, as string
   constants, with the placeholders the official code fills), since a copy may be of
   another commit; its files' sha256 are recorded with the run;
2. else the copy `locoscore dataset fetch locomo-plus-official` saved in the user cache,
   pinned by sha256 at commit 059f4e3 (checked again when read).

When neither is there, the official profile stops with exit 2 and the fetch command.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass
from pathlib import Path

from locoscore._io import sha256_text
from locoscore.benchmarks.locomo_plus.data import PLUS_COMMIT
from locoscore.errors import DatasetError

UTILS = "evaluation_framework/task_eval/utils.py"
PROMPTS = "evaluation_framework/task_eval/prompt.py"
# The two files at the pinned commit, as `dataset fetch` checks them.
PINNED = {
    UTILS: "55fb916e46ac10a521670f96594abd117dfc63b1342ca67e81a2fab6780233a5",
    PROMPTS: "e43e3ee7115a30938e727fe0eab16694186c08e3f9619f9d8dd5e603d96fc2b1",
}
RAW_BASE = f"https://raw.githubusercontent.com/xjtuleeyf/Locomo-Plus/{PLUS_COMMIT}"
CACHE_FOLDER = f"locomo-plus-{PLUS_COMMIT[:7]}"  # the repository's layout, the two files only
FETCH_NAME = "locomo-plus-official"
FETCH_HINT = (
    f"run `locoscore dataset fetch {FETCH_NAME}` (the official prompt files, pinned by "
    "sha256), or pass --dataset PATH, a local copy of the official repository"
)
COGNITIVE = "Cognitive"  # the official category of every LoCoMo-Plus item


@dataclass(frozen=True)
class OfficialPrompts:
    """The official texts, as the repository's files hold them (not yet formatted)."""

    conv_start: str  # two `{}` fields: the speakers' names (the official code passes "A", "B")
    instruction: str  # the Cognitive task instruction
    judge: str  # the Cognitive judge template: `{evidence}`, `{pred}` (and `{gold}`, unused)
    source: str  # "fetched copy (pinned sha256)" or "local copy"
    root: Path
    sha256: dict[str, str]  # repository path -> the file's sha256

    @property
    def version(self) -> str:
        """What signatures name: the two files' sha256, shortened together."""
        joined = "".join(self.sha256[name] for name in sorted(self.sha256))
        return sha256_text(joined)[:12]


def cache_root() -> Path:
    from locoscore.data.user_cache import user_cache_file

    return user_cache_file(CACHE_FOLDER)


def fetch_prompt_files(url: str | None, dest: Path | None) -> Path:
    """Download the two files (from `url`, a base in the repository's layout, else the
    pinned commit) into `dest` (else the user cache), each checked against its sha256."""
    from locoscore.data.user_cache import download_verified

    root = dest or cache_root()
    base = (url or RAW_BASE).rstrip("/")
    for name, sha in PINNED.items():
        download_verified(f"{base}/{name}", sha, root / name, manual_option="--dataset PATH")
    return root


def _tree(path: Path) -> ast.Module:
    try:
        return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
        raise DatasetError(f"not readable Python source ({exc})", file=str(path)) from None


def _assigned(tree: ast.Module, name: str, path: Path) -> ast.expr:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return node.value
    raise DatasetError("not assigned in the file", file=str(path), field=name)


def _string(node: ast.expr, path: Path, field: str) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    raise DatasetError("not a string constant", file=str(path), field=field)


def _entry(node: ast.expr, key: str, path: Path, field: str) -> str:
    if isinstance(node, ast.Dict):
        for k, v in zip(node.keys, node.values, strict=True):
            if isinstance(k, ast.Constant) and k.value == key:
                return _string(v, path, f"{field}[{key!r}]")
    raise DatasetError(f"no {key!r} entry", file=str(path), field=field)


def _check(prompts: OfficialPrompts) -> OfficialPrompts:
    """The structure the official code relies on: the prefix takes two names, the judge
    template takes `gold`, `pred` and `evidence` and names both."""
    where = str(prompts.root / UTILS)
    try:
        prompts.conv_start.format("A", "B")
    except (IndexError, KeyError, ValueError):
        raise DatasetError(
            "does not format with two names", file=where, field="CONV_START_PROMPT"
        ) from None
    judge = str(prompts.root / PROMPTS)
    field = f"PROMPT_TEMPLATES[{COGNITIVE!r}]"
    if "{evidence}" not in prompts.judge or "{pred}" not in prompts.judge:
        raise DatasetError("lacks {evidence} or {pred}", file=judge, field=field)
    try:
        prompts.judge.format(gold="", pred="", evidence="")
    except (IndexError, KeyError, ValueError):
        raise DatasetError(
            "does not format with gold, pred and evidence", file=judge, field=field
        ) from None
    return prompts


def read_prompt_files(root: Path, source: str) -> OfficialPrompts:
    """The texts from a folder in the repository's layout (structure checked)."""
    files = {name: root / name for name in PINNED}
    for path in files.values():
        if not path.is_file():
            raise DatasetError(f"official prompt file not found; {FETCH_HINT}", file=str(path))
    utils, prompts = _tree(files[UTILS]), _tree(files[PROMPTS])
    conv = _string(_assigned(utils, "CONV_START_PROMPT", files[UTILS]), files[UTILS], "CONV_START")
    instruction = _string(
        _assigned(utils, "INSTRUCTION_COGNITIVE", files[UTILS]),
        files[UTILS],
        "INSTRUCTION_COGNITIVE",
    )
    templates = _assigned(prompts, "PROMPT_TEMPLATES", files[PROMPTS])
    judge = _entry(templates, COGNITIVE, files[PROMPTS], "PROMPT_TEMPLATES")
    sha = {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in files.items()}
    return _check(OfficialPrompts(conv, instruction, judge, source, root, sha))


def official_prompts(repository: Path | None) -> OfficialPrompts:
    """A local copy's files (`repository`, checked by structure), else the fetched copy's
    (checked by sha256); absent: one line with the fetch command (exit 2)."""
    if repository is not None:
        return read_prompt_files(repository, "local copy")
    root = cache_root()
    if not all((root / name).is_file() for name in PINNED):
        raise DatasetError(f"the official LoCoMo-Plus protocol reads the official prompt "
                           f"files, not found: {FETCH_HINT}")  # fmt: skip
    prompts = read_prompt_files(root, "fetched copy (pinned sha256)")
    for name, sha in PINNED.items():
        if prompts.sha256[name] != sha:
            raise DatasetError(
                f"sha256 {prompts.sha256[name]}, expected {sha}: {FETCH_HINT}",
                file=str(root / name),
            )
    return prompts
