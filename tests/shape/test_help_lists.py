"""Help lists what the registry holds: every benchmark and judge protocol, every fetchable
file, each benchmark's own files and the benchmarks taking per-type judge templates; none
hard-coded (issue 19)."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from locoscore.cli import app


def _help(args: list[str]) -> str:
    """The rendered help as one line of words (rich's boxes and line wrapping removed)."""
    result = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.replace("│", " ").split())


def _option_help(text: str, option: str) -> str:
    """The help text of `option` in a rendered help (up to the next option)."""
    after = text.split(f" {option} ", 1)[1]
    # the next option: its name, then its type or its help (`--quick:` in a text is neither)
    return re.split(r" --[a-z][\w-]*(?:/--[\w-]+)? (?:<|[A-Z])", after, maxsplit=1)[0]


BENCHMARK_COMMANDS = (
    ["run"],
    ["judge"],
    ["audit"],
    ["dataset", "info"],
    ["report"],
    ["compare"],
    ["probe"],
)


def test_every_benchmark_option_lists_every_registered_benchmark() -> None:
    from locoscore.benchmarks import BENCHMARKS

    for args in BENCHMARK_COMMANDS:
        listed = _option_help(_help(args), "--benchmark")
        for name in BENCHMARKS:  # beam was missing from every one of them
            assert re.search(rf"\b{re.escape(name)}\b", listed), (args, name, listed)
        assert "python:module:NAME" in listed, args


def test_protocol_option_lists_every_judge_protocol() -> None:
    from locoscore.benchmarks import BENCHMARKS
    from locoscore.benchmarks.beam.folder import PROTOCOLS as BEAM_PROTOCOLS
    from locoscore.judge.prompts import PROTOCOLS

    declared = {p for b in BENCHMARKS.values() for p in getattr(b, "judge_protocols", ())}
    protocols = {*PROTOCOLS, *BEAM_PROTOCOLS, *declared}
    for args in (["judge"], ["audit"]):
        listed = _option_help(_help(args), "--protocol")
        for protocol in protocols:  # rubric and binary alone on main
            assert re.search(rf"(?<![\w-]){re.escape(protocol)}(?![\w-])", listed), (args, protocol)
    # the registry's BEAM protocols are the ones its judge takes
    assert tuple(getattr(BENCHMARKS["beam"], "judge_protocols", ())) == BEAM_PROTOCOLS


def test_dataset_fetch_lists_every_fetchable_file() -> None:
    from locoscore.benchmarks import BENCHMARKS

    names = [
        "dataset",
        "errata",
        "probes",
        *(n for b in BENCHMARKS.values() for n in b.fetch_names),
    ]
    assert "beam-100k" in names
    text = _help(["dataset", "fetch"])
    argument = text.split("Arguments", 1)[1].split("Options", 1)[0]
    for name in names:
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", argument), name


def test_top_level_help_names_every_benchmark() -> None:
    from locoscore.benchmarks import BENCHMARKS

    text = _help([])
    for bench in BENCHMARKS.values():
        title = bench.description.split(" (")[0]  # LoCoMo, LongMemEval, BEAM
        assert title in text.split("Options")[0], title


def test_run_help_promises_each_benchmark_only_the_files_it_writes() -> None:
    from locoscore.benchmarks import BENCHMARKS

    text = _help(["run"])
    listed = dict(
        # the paragraph only: options' help composes notes as `name: note` too
        re.findall(
            r"([\w-]+): ([\w./]+(?:, [\w./]+)*)",
            text.split("Writes into DIR")[1].split("A dry run")[0],
        )
    )
    for name, bench in BENCHMARKS.items():
        files = getattr(bench, "run_files", None)
        assert listed.get(name, "").split(", ") == list(files or ["?"]), (name, listed)
    # what a LongMemEval run writes (longmemeval/outputs.py), not LoCoMo's reports
    assert BENCHMARKS["longmemeval"].run_files == ("hypotheses.jsonl", "summary.json")


def test_type_template_help_names_the_benchmarks_that_take_per_type_templates() -> None:
    from locoscore.benchmarks import BENCHMARKS

    listed = _option_help(_help(["judge"]), "--type-template")
    takes = [n for n, b in BENCHMARKS.items() if b.takes_type_templates]
    assert takes == ["longmemeval"]  # its judge reads one rule per question type
    assert f"per-type rules ({', '.join(takes)})" in listed, listed
    assert "beam" not in listed and "locomo" not in listed


def test_options_some_benchmarks_read_say_what_each_declares() -> None:
    """--format, --prediction-key, --errata, --dataset, --protocols: composed from every
    benchmark's `option_help`, none naming a benchmark by hand (the CLI imports no
    benchmark's module)."""
    from locoscore.benchmarks import BENCHMARKS
    from locoscore.benchmarks.locomo.data.readers import FORMATS

    for args, option in (
        (["score"], "--format"),
        (["judge"], "--format"),
        (["judge"], "--prediction-key"),
        (["run"], "--errata"),
        (["run"], "--dataset"),
        (["score"], "--protocols"),
    ):
        listed = _option_help(_help(args), option)
        notes = {
            b.name: b.option_help[option] for b in BENCHMARKS.values() if option in b.option_help
        }
        assert notes, option
        for name, note in notes.items():
            assert f"{name}: {' '.join(note.split())}" in listed, (args, option, listed)
    listed = _option_help(_help(["audit"]), "--format")
    assert all(re.search(rf"\b{f}\b", listed) for f in FORMATS), listed
    assert "locomo, mem0, spec" in _option_help(_help(["score"]), "--protocols")


def test_protocol_option_names_only_benchmarks_that_take_a_judge() -> None:
    from locoscore.benchmarks import BENCHMARKS

    listed = _option_help(_help(["judge"]), "--protocol")
    takes = listed.split("Each benchmark takes its own (", 1)[1]
    for bench in BENCHMARKS.values():
        named = re.search(rf"(?<![\w-]){re.escape(bench.name)}:", takes) is not None
        # personamem was listed as "rubric, binary" though `judge` refuses it
        assert named == ("judge" in bench.commands), (bench.name, takes)
    assert "personamem" not in listed
