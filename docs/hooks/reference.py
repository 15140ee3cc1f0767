"""MkDocs hook: the reference pages that must not drift, generated at build time.

- `reference/cli/<command>.md`: one page per `locoscore` command, walked from the Typer/Click
  app itself (every argument and option, its help, default and choices), plus an index;
- `reference/python-api.md`: the public Python API from its docstrings.

The pages are added to the build's files (never written into docs/), and the command pages
are put into the nav under the entry whose page is `reference/cli/index.md`, so a new command
or option appears without editing mkdocs.yml. Loaded by `hooks:` in mkdocs.yml.
"""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

import typer
from mkdocs.structure.files import File, Files

CLI_DIR = "reference/cli"
API_PAGE = "reference/python-api.md"


# ---------------------------------------------------------------- the command tree


def command_tree() -> list[tuple[str, Any]]:
    """(full name, command) for every leaf command of `locoscore`, in name order."""
    from locoscore.cli import app

    root = typer.main.get_command(app)
    out: list[tuple[str, Any]] = []

    def walk(prefix: str, command: Any) -> None:
        if hasattr(command, "commands"):  # a group (Typer ships its own click)
            for name in sorted(command.commands):
                walk(f"{prefix} {name}".strip(), command.commands[name])
        else:
            out.append((prefix, command))

    walk("", root)
    return out


def _is_option(param: Any) -> bool:
    return bool(param.param_type_name == "option")


def page_name(name: str) -> str:
    return f"{CLI_DIR}/{name.replace(' ', '-')}.md"


def anchor(name: str, param: Any) -> str:
    """The option's stable id on its page: `run--top-k`, `dataset-fetch--url`."""
    flag = param.opts[0] if _is_option(param) else param.name or "arg"
    return f"{name.replace(' ', '-')}-{flag}".lower().replace("_", "-")


_CODE = re.compile(r"(`[^`]*`)")


def text(value: str) -> str:
    """Help text as markdown: its `code` kept, everything else escaped (no stray HTML,
    emphasis or links from a help string)."""
    parts = _CODE.split(value)
    for i in range(0, len(parts), 2):
        part = parts[i].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        parts[i] = re.sub(r"([\\*_\[\]|#])", r"\\\1", part)
    return "".join(parts)


def command_page(name: str, command: Any) -> str:
    """One command's page: usage, help, then a section per argument and option, each with
    exactly the text `--help` prints for it (Click's own help record)."""
    ctx = command.context_class(command, info_name=f"locoscore {name}")
    usage = " ".join(command.get_usage(ctx).removeprefix("Usage:").split())
    help_text = inspect.cleandoc(command.help or "")
    lines = [
        f"# locoscore {name}",
        "",
        f"*Generated from the command itself at build time: what `locoscore {name} --help` says.*",
        "",
        "```text",
        usage,
        "```",
        "",
        *[text(p) + "\n" for p in help_text.split("\n\n") if p.strip()],
    ]
    params = [p for p in command.get_params(ctx) if not getattr(p, "hidden", False)]
    arguments = [p for p in params if not _is_option(p)]
    options = [p for p in params if _is_option(p) and p.name != "help"]
    if arguments:
        lines += ["## Arguments", ""]
        for p in arguments:
            shown, help_line = p.get_help_record(ctx) or (str(p.name).upper(), "")
            lines += [f"### `{shown}` {{#{anchor(name, p)}}}", ""]
            lines += [text(" ".join((help_line or "(no help text)").split())), ""]
    lines += ["## Options", ""]
    for p in options:
        flags, help_line = p.get_help_record(ctx) or ("", "")
        shown = ", ".join([*p.opts, *p.secondary_opts])
        lines += [f"### `{shown}` {{#{anchor(name, p)}}}", "", f"`{flags}`", ""]
        lines += [text(" ".join(help_line.split())) or "(no help text)", ""]
    return "\n".join(lines) + "\n"


def index_page(tree: list[tuple[str, Any]]) -> str:
    lines = [
        "# Command line",
        "",
        "*Generated from the command itself at build time.* Every command's `--help` says "
        "the same; `locoscore --version` prints the version.",
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    for name, command in tree:
        first = (command.help or "").strip().split("\n\n")[0]
        summary = text(" ".join(first.split()))
        lines.append(f"| [`locoscore {name}`]({name.replace(' ', '-')}.md) | {summary} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- the Python API

API = {
    "locoscore": (
        "Scoring functions (loaded on first use, so `import locoscore` stays light).",
        [
            "score_f1",
            "bleu1",
            "get_protocol",
            "score_results_f1",
            "aggregate_f1_by_category",
            "compute_overall_f1",
            "normalize_answer",
            "porter_stem",
            "tokenize",
            "compute_token_f1",
        ],
    ),
    "locoscore.systems.base": (
        "What a memory system is: subclass `MemorySystem`, or write any class with the same "
        "three async methods.",
        ["MemorySystem", "MemoryItem", "SearchResult", "Usage"],
    ),
    "locoscore.data.conversation": (
        "What a system is given.",
        ["SessionInput", "Query"],
    ),
    "locoscore.systems.probe": (
        "The integration probe, from Python.",
        ["run_probe", "require_probe", "ProbeFailed"],
    ),
    "locoscore.benchmarks": (
        "A benchmark: one registered object.",
        ["Benchmark", "QuestionType"],
    ),
    "locoscore.generic.parts": (
        "The parts a small benchmark declares.",
        ["Metric", "JudgeRules"],
    ),
}


def _signature(obj: Any) -> str:
    try:
        # postponed annotations are strings: shown without their quotes
        return re.sub(r"(: |-> )'([^']*)'", r"\1\2", str(inspect.signature(obj)))
    except (TypeError, ValueError):
        return ""


def api_page() -> str:
    lines = [
        "# Python API",
        "",
        "*Generated from the docstrings at build time.* The names below are the stable API; "
        "everything else may change between versions.",
        "",
    ]
    for module_name, (about, names) in API.items():
        module = importlib.import_module(module_name)
        lines += [f"## `{module_name}`", "", about, ""]
        for name in names:
            obj = getattr(module, name)
            kind = "class" if inspect.isclass(obj) else "function"
            prefix = "async " if inspect.iscoroutinefunction(obj) else ""
            lines += [
                f"### `{name}` {{#{module_name.replace('.', '-')}-{name.lower()}}}",
                "",
                "```python",
                f"{prefix}{'class ' if kind == 'class' else 'def '}{name}{_signature(obj)}",
                "```",
                "",
                text(inspect.getdoc(obj) or "(no docstring)"),
                "",
            ]
            if inspect.isclass(obj):
                for member, value in vars(obj).items():
                    if member.startswith("_") or not callable(value):
                        continue
                    doc = inspect.getdoc(value)
                    if doc:
                        lines += [f"- `{member}{_signature(value)}`: {text(' '.join(doc.split()))}"]
                lines.append("")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- mkdocs events


def on_config(config: Any) -> Any:
    """Put one nav entry per command under the entry whose page is the CLI index."""
    tree = command_tree()
    entries = [{"Overview": f"{CLI_DIR}/index.md"}] + [
        {f"locoscore {name}": page_name(name)} for name, _ in tree
    ]

    def expand(nav: Any) -> Any:
        if isinstance(nav, list):
            return [expand(item) for item in nav]
        if isinstance(nav, dict):
            return {
                key: entries if value == f"{CLI_DIR}/index.md" else expand(value)
                for key, value in nav.items()
            }
        return nav

    config["nav"] = expand(config["nav"])
    return config


def on_files(files: Files, config: Any) -> Files:
    tree = command_tree()
    pages = {f"{CLI_DIR}/index.md": index_page(tree), API_PAGE: api_page()}
    for name, command in tree:
        pages[page_name(name)] = command_page(name, command)
    for path, content in pages.items():
        files.append(File.generated(config, path, content=content))
    return files
