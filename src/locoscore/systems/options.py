"""`--system-option KEY=VALUE`: parsing, typed validation, and one-line errors."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from locoscore.errors import InputError

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class OptionSpec:
    """One option a system accepts. `kind` is str, int, float or bool."""

    kind: type
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    in_signature: bool = True  # False for options that cannot change results (URLs, paths)

    def convert(self, system: str, key: str, raw: str) -> Any:
        where = f"--system-option {key}={raw}"
        if self.choices and raw not in self.choices:
            raise InputError(f"{where}: {system} expects one of {', '.join(self.choices)}")
        if self.kind is bool:
            if raw.lower() in _TRUE:
                return True
            if raw.lower() in _FALSE:
                return False
            raise InputError(f"{where}: expected true or false")
        if self.kind in (int, float):
            try:
                value = self.kind(raw)
            except ValueError:
                expected = "an integer" if self.kind is int else "a number"
                raise InputError(f"{where}: expected {expected}") from None
            if value <= 0:
                raise InputError(f"{where}: expected a positive value")
            return value
        if not raw:
            raise InputError(f"{where}: empty value")
        return raw


def parse_option_pairs(pairs: Iterable[str]) -> dict[str, str]:
    """KEY=VALUE strings into a dict; a malformed or repeated pair is an InputError."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"--system-option {pair!r}: expected KEY=VALUE")
        if key in options:
            raise InputError(f"--system-option {key} given twice")
        options[key] = value.strip()
    return options


def resolve_options(
    system: str, specs: Mapping[str, OptionSpec], raw: Mapping[str, str]
) -> dict[str, Any]:
    """Defaults overlaid with the user's values; an unknown key names the known ones."""
    unknown = sorted(set(raw) - set(specs))
    if unknown:
        known = ", ".join(sorted(specs)) or "none"
        raise InputError(
            f"--system-option {unknown[0]}: unknown option for system {system} (known: {known})"
        )
    values = {key: spec.default for key, spec in specs.items()}
    for key, text in raw.items():
        values[key] = specs[key].convert(system, key, text)
    return values


def signature_values(specs: Mapping[str, OptionSpec], values: Mapping[str, Any]) -> dict[str, str]:
    return {
        key: str(values[key]).lower() if isinstance(values[key], bool) else str(values[key])
        for key, spec in sorted(specs.items())
        if spec.in_signature and values.get(key) is not None
    }
