"""The documentation site builds with warnings as errors, its command line reference is the
CLI's own (a changed help text shows up in the built site; every command and option has its
section), and a broken internal link fails the build."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

mkdocs_config = pytest.importorskip("mkdocs.config", reason="the docs extra is not installed")
from mkdocs.commands.build import build  # noqa: E402
from mkdocs.exceptions import Abort  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
NEW_HELP = "Charts as standalone SVG files, this text patched in by the docs test"


def _build(config_file: Path, site: Path) -> None:
    config = mkdocs_config.load_config(str(config_file), site_dir=str(site), strict=True)
    config.plugins.on_startup(command="build", dirty=False)
    try:
        build(config)
    finally:
        config.plugins.on_shutdown()


def _visible(page: str) -> str:
    """A page's text as a reader sees it: tags dropped, entities decoded, spaces collapsed."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _plain(help_text: str) -> str:
    return " ".join(help_text.replace("`", "").split())


def _tree() -> list[tuple[str, Any]]:
    import sys

    sys.path.insert(0, str(REPO / "docs" / "hooks"))
    try:
        import reference  # the hook module itself: the same walk the build does
    finally:
        sys.path.pop(0)
    return reference.command_tree()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once against the real CLI with one option's help changed."""
    import typer.main

    real = typer.main.get_command

    def patched(app: Any) -> Any:
        command = real(app)
        if getattr(command, "name", None) == "locoscore" or hasattr(command, "commands"):
            report = command.commands.get("report")  # type: ignore[attr-defined]
            if report is not None:
                svg = next(p for p in report.params if p.name == "svg")
                svg.help = NEW_HELP
        return command

    out = tmp_path_factory.mktemp("site")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(typer.main, "get_command", patched)
        _build(REPO / "mkdocs.yml", out)
    return out


def test_a_changed_help_text_is_in_the_built_reference(site: Path) -> None:
    page = (site / "reference" / "cli" / "report" / "index.html").read_text(encoding="utf-8")
    section = page.split('id="report---svg"', 1)[1].split("<h3", 1)[0]
    assert NEW_HELP in _visible(section)
    assert "Also write each chart as a standalone .svg" not in _visible(page)


def test_every_command_and_option_has_its_section_with_its_help(site: Path) -> None:
    tree = _tree()
    assert {name for name, _ in tree} >= {"run", "judge", "score", "report", "dataset fetch"}
    index = _visible((site / "reference" / "cli" / "index.html").read_text(encoding="utf-8"))
    for name, command in tree:
        page = site / "reference" / "cli" / name.replace(" ", "-") / "index.html"
        text = page.read_text(encoding="utf-8")
        assert f"locoscore {name}" in index
        ctx = command.context_class(command, info_name=f"locoscore {name}")
        for param in command.get_params(ctx):
            if param.name == "help" or getattr(param, "hidden", False):
                continue
            flag = param.opts[0] if param.param_type_name == "option" else param.name
            anchor = f"{name.replace(' ', '-')}-{flag}".lower().replace("_", "-")
            assert f'id="{anchor}"' in text, (name, anchor)
            section = _visible(text.split(f'id="{anchor}"', 1)[1].split("<h3", 1)[0])
            record = param.get_help_record(ctx)
            if name == "report" and param.name == "svg":
                continue  # patched in this build (the test above)
            # spaces aside: a code span's tags leave a space before the period after it
            assert record is not None, (name, anchor)
            assert _plain(record[1]).replace(" ", "") in section.replace(" ", ""), (name, anchor)


def test_the_site_loads_nothing_from_the_network(site: Path) -> None:
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "fonts.googleapis.com" not in home
    assert not re.search(r'<(script|link)[^>]+(src|href)="https?://', home)


def test_the_python_api_page_holds_every_stable_name_with_its_docstring(site: Path) -> None:
    import locoscore

    page = _visible((site / "reference" / "python-api" / "index.html").read_text("utf-8"))
    for name in ("score_f1", "bleu1", "MemorySystem", "run_probe", "Benchmark", "Metric"):
        assert name in page
    assert _plain(locoscore.score_f1.__doc__ or "").replace(" ", "") in page.replace(" ", "")


def test_a_broken_internal_link_fails_the_build(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(REPO / "docs", docs)
    (docs / "getting-started.md").write_text(
        "# Getting started\n\nSee [the missing page](no-such-page.md).\n", encoding="utf-8"
    )
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(config, encoding="utf-8")
    with pytest.raises(Abort, match="warning"):
        _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warned) == 1 and "no-such-page.md" in warned[0], warned
    caplog.clear()
    (docs / "getting-started.md").write_text(
        "# Getting started\n\nSee [a missing anchor](index.md#no-such-anchor).\n", encoding="utf-8"
    )
    with pytest.raises(Abort, match="warning"):
        _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warned) == 1 and "no-such-anchor" in warned[0], warned
