"""`python:module:NAME` specs: an object of the user's own module, imported like `python -m`
would (the current working directory first on `sys.path`, so `my_module.py` beside the user
is found without installing it). Shared by `--system` and `--benchmark`; every failure is one
line of bad input naming the option and the spec."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from locoscore.errors import InputError

PYTHON_PREFIX = "python:"


def parse_spec(spec: str, option: str, example: str) -> tuple[str, str]:
    """(module, attribute) of `python:module:NAME`."""
    module_name, sep, attribute = spec.removeprefix(PYTHON_PREFIX).rpartition(":")
    if not sep or not module_name or not attribute.isidentifier():
        raise InputError(f"{option} {spec}: expected {example}")
    return module_name, attribute


def import_spec(spec: str, option: str, example: str) -> Any:
    """The object `python:module:NAME` names, with the current directory importable."""
    module_name, attribute = parse_spec(spec, option, example)
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    importlib.invalidate_caches()  # a module written since the last import is found
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name or module_name.startswith(f"{exc.name}."):
            raise InputError(
                f"{option} {spec}: no module {module_name!r} in this environment or in {cwd}"
            ) from None
        raise _import_failed(spec, option, module_name, exc) from None
    except Exception as exc:
        raise _import_failed(spec, option, module_name, exc) from None
    value = getattr(module, attribute, None)
    if value is None:
        raise InputError(f"{option} {spec}: module {module_name!r} has no {attribute!r}")
    return value


def _import_failed(spec: str, option: str, module_name: str, exc: BaseException) -> InputError:
    from locoscore.llm.call_errors import one_line_error

    return InputError(f"{option} {spec}: importing {module_name!r} failed: {one_line_error(exc)}")
