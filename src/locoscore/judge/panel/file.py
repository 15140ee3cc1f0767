"""A judge panel file (PANEL.toml): one `[[judge]]` table per judge.

    [[judge]]
    name = "sonnet-strict"        # its folder: DIR/judges/<name>/
    provider = "anthropic"
    model = "claude-sonnet-4-6"
    template = "strict"           # locoscore | official | strict | lenient | a file
    runs = 3                      # optional, like base_url and protocol

Every value not given is the command line's (`--runs`, `--protocol`, ...). A bad file is
refused before any call, naming the file, the judge and the field.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from locoscore.errors import InputError

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_TEXT_FIELDS = ("name", "provider", "model", "base_url", "protocol", "template")
_FIELDS = (*_TEXT_FIELDS, "runs")


@dataclass(frozen=True)
class PanelJudge:
    name: str
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    protocol: str | None = None
    template: str = "locoscore"
    runs: int | None = None


def read_panel(path: Path) -> list[PanelJudge]:
    """The judges of a panel file, in file order (two at least, names unique)."""
    try:
        loaded = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML ({exc})", file=str(path)) from None
    extra = sorted(set(loaded) - {"judge"})
    if extra:
        raise InputError(f"unknown key(s) {', '.join(extra)}", file=str(path), field=extra[0])
    tables = loaded.get("judge")
    if not isinstance(tables, list) or len(tables) < 2:
        raise InputError(
            "a panel lists two judges or more, each as a [[judge]] table", file=str(path)
        )
    judges = [_judge(path, i, table) for i, table in enumerate(tables, 1)]
    seen: set[str] = set()
    for judge in judges:
        if judge.name.lower() in seen:  # one folder each, also on case-blind file systems
            raise InputError(
                f"judge name {judge.name!r} is used twice", file=str(path), field="name"
            )
        seen.add(judge.name.lower())
    return judges


def _judge(path: Path, number: int, table: Any) -> PanelJudge:
    record = f"judge {number}"

    def bad(message: str, field: str | None = None) -> InputError:
        return InputError(message, file=str(path), record=record, field=field)

    if not isinstance(table, dict):
        raise bad("expected a [[judge]] table")
    unknown = sorted(set(table) - set(_FIELDS))
    if unknown:
        raise bad(f"unknown field (known: {', '.join(_FIELDS)})", unknown[0])
    for key in _TEXT_FIELDS:
        if key in table and (not isinstance(table[key], str) or not table[key].strip()):
            raise bad("expected a non-empty string", key)
    name = table.get("name")
    if name is None:
        raise bad("missing", "name")
    if not _NAME.match(name):
        raise bad("letters, digits, '.', '_' or '-' (it names the judge's folder)", "name")
    runs = table.get("runs")
    if runs is not None and (isinstance(runs, bool) or not isinstance(runs, int) or runs < 1):
        raise bad("expected a whole number >= 1", "runs")
    return PanelJudge(
        name=name,
        provider=table.get("provider"),
        model=table.get("model"),
        base_url=table.get("base_url"),
        protocol=table.get("protocol"),
        template=table.get("template", "locoscore"),
        runs=runs,
    )
