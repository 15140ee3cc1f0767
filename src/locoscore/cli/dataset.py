"""`locoscore dataset info | fetch`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import typer
from rich.table import Table

from locoscore.categories import CATEGORY_NAMES
from locoscore.cli._app import app, console, handle_errors
from locoscore.cli._options import DatasetOpt
from locoscore.data.dataset import LOCOMO_SHA256, LOCOMO_URL, fetch_dataset, load_dataset
from locoscore.data.errata import ERRATA_SHA256, ERRATA_URL, fetch_errata
from locoscore.data.probes import PROBE_SOURCES, PROBES_BASE_URL, fetch_probes
from locoscore.errors import InputError

dataset_app = typer.Typer(help="Inspect or download the LoCoMo dataset.", no_args_is_help=True)
app.add_typer(dataset_app, name="dataset")


@dataset_app.command("info")
@handle_errors
def info(
    dataset: DatasetOpt = None,
) -> None:
    """Print the dataset's checksum and per-category question counts.

    Writes nothing."""
    ds = load_dataset(dataset)
    console.print(f"path     {ds.path}")
    status = "[green]matches the release[/]" if ds.checksum_ok else "[yellow]differs[/]"
    console.print(f"sha256   {ds.sha256} ({status})")
    console.print(f"samples  {len(ds.samples)}")
    table = Table(title="Questions per category")
    table.add_column("id", justify="right")
    table.add_column("category")
    table.add_column("count", justify="right")
    counts = ds.category_counts()
    for cid, name in CATEGORY_NAMES.items():
        table.add_row(str(cid), name, str(counts[cid]))
    table.add_row("", "total", str(sum(counts.values())))
    table.add_row("", "total without adversarial", str(sum(counts.values()) - counts[5]))
    console.print(table)


@dataclass(frozen=True)
class _Fetchable:
    url: str
    sha256: str
    fetch: Callable[[str, Path | None], Path]


def _fetch_probes(url: str, dest: Path | None) -> Path:
    paths = fetch_probes(url, dest)
    return paths[0].parent


# What `dataset fetch` can download; each is sha256-pinned and saved in the user cache.
_FETCHABLE = {
    "dataset": _Fetchable(LOCOMO_URL, LOCOMO_SHA256, fetch_dataset),
    "errata": _Fetchable(ERRATA_URL, ERRATA_SHA256, fetch_errata),
    "probes": _Fetchable(
        PROBES_BASE_URL, ", ".join(s.sha256 for s in PROBE_SOURCES), _fetch_probes
    ),
}
_FETCHABLE["locomo"] = _FETCHABLE["dataset"]


@dataset_app.command("fetch")
@handle_errors
def fetch(
    what: str = typer.Argument(
        "dataset",
        help="dataset (locomo10.json; also 'locomo'), errata (the audited list of wrong gold "
        "answers) or probes (the judge-audit probe sets), from dial481/locomo-audit.",
        metavar="[dataset|errata|probes]",
    ),
    url: str | None = typer.Option(None, help="Where to download from (default: the pinned URL)."),
    dest: Path | None = typer.Option(None, help="Destination (default: the user cache dir)."),
) -> None:
    """Download locomo10.json, the gold errata or the judge probe sets into the user cache,
    each checked against its pinned sha256.

    Writes into the user cache folder (or --dest): locomo10.json, locomo-audit-errors.json
    (errata), or judge-probes/specific-but-wrong.json and vague-but-topical.json (probes)."""
    item = _FETCHABLE.get(what)
    if item is None:
        raise InputError(f"expected one of dataset, errata, probes, got {what!r}", field="WHAT")
    path = item.fetch(url or item.url, dest)
    console.print(f"saved {path} (sha256 {item.sha256})", highlight=False)
