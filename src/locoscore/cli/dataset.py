"""`locoscore dataset info | fetch`."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from locoscore.categories import CATEGORY_NAMES
from locoscore.cli._app import app, console, handle_errors
from locoscore.data.dataset import LOCOMO_SHA256, LOCOMO_URL, fetch_dataset, load_dataset
from locoscore.data.probes import PROBE_SOURCES, PROBES_BASE_URL, fetch_probes
from locoscore.errors import InputError

dataset_app = typer.Typer(help="Inspect or download the LoCoMo dataset.", no_args_is_help=True)
app.add_typer(dataset_app, name="dataset")


@dataset_app.command("info")
@handle_errors
def info(
    dataset: Path | None = typer.Option(
        None, "--dataset", help="locomo10.json (default: $LOCOSCORE_DATASET, then the cache)."
    ),
) -> None:
    """Print the dataset's checksum and per-category question counts."""
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


@dataset_app.command("fetch")
@handle_errors
def fetch(
    what: str = typer.Argument(
        "dataset", help="dataset (locomo10.json) or probes (the judge-audit probe sets)."
    ),
    url: str | None = typer.Option(
        None,
        help=f"Where to download from (dataset: {LOCOMO_URL}; probes: the folder holding "
        f"them, {PROBES_BASE_URL}).",
    ),
    dest: Path | None = typer.Option(
        None, help="Destination file (dataset) or folder (probes); default: the user cache."
    ),
) -> None:
    """Download locomo10.json, or the judge probe sets, into the user cache; verify sha256."""
    if what == "dataset":
        path = fetch_dataset(url or LOCOMO_URL, dest)
        console.print(f"saved {path} (sha256 {LOCOMO_SHA256})")
        return
    if what != "probes":
        raise InputError(f"unknown download {what!r} (expected dataset or probes)", field="WHAT")
    paths = fetch_probes(url or PROBES_BASE_URL, dest)
    for path, source in zip(paths, PROBE_SOURCES, strict=True):
        console.print(f"saved {path} (sha256 {source.sha256})", highlight=False)
