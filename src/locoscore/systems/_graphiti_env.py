"""Importing Graphiti offline and opening one embedded Kùzu graph per conversation.

Graphiti sends PostHog events (and writes an id under ~/.cache) unless
`GRAPHITI_TELEMETRY_ENABLED` is false when an event is sent: locoscore sets it to false for
the process. Its Kùzu driver creates the schema but not the full-text indexes
its BM25 search reads (`build_indices_and_constraints` is a no-op on Kùzu): they are created
here when a graph is opened. Graphiti's `group_id` partitions crashed the Kùzu driver when
tried; one database per conversation needs none.
"""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

from locoscore.errors import InputError
from locoscore.systems._library_system import library_version

SUPPORTED_SERIES = "0.31."
INSTALL_HINT = "pip install 'locoscore[graphiti]'"
TELEMETRY_VARIABLE = "GRAPHITI_TELEMETRY_ENABLED"
# The full-text indexes Graphiti's Kùzu search queries by name (graph_queries.py).
FULLTEXT_INDEXES = (
    ("Episodic", "episode_content", ("content", "source", "source_description")),
    ("Entity", "node_name_and_summary", ("name", "summary")),
    ("Community", "community_name", ("name",)),
    ("RelatesToNode_", "edge_name_and_fact", ("name", "fact")),
)


def installed_version() -> str:
    """The installed graphiti-core version (read from its metadata, not imported yet)."""
    version = library_version("graphiti", "graphiti-core", SUPPORTED_SERIES, INSTALL_HINT)
    library_version("graphiti", "kuzu", "", INSTALL_HINT)
    return version


def import_graphiti() -> ModuleType:
    """`graphiti_core`, with telemetry off (Graphiti reads the variable at every event)."""
    os.environ[TELEMETRY_VARIABLE] = "false"
    try:
        import graphiti_core
    except ImportError as exc:
        raise InputError(
            f"--system graphiti needs the graphiti extra ({INSTALL_HINT}): {exc}"
        ) from None
    # Graphiti logs each LLM retry and parse problem; the run reports failures itself.
    logging.getLogger("graphiti_core").setLevel(logging.ERROR)
    return graphiti_core


async def open_graph(
    path: Path, llm_client: Any, embedding_dims: int, embedder_model: str, openai_client: Any
) -> Any:
    """A `Graphiti` on the Kùzu database at `path` (created with its indexes if new)."""
    from graphiti_core import Graphiti
    from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient
    from graphiti_core.driver.kuzu_driver import KuzuDriver
    from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig

    path.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        # "The Kuzu backend is deprecated": it is the only embedded, serverless one.
        warnings.simplefilter("ignore", DeprecationWarning)
        driver = KuzuDriver(db=str(path))
    rows, _, _ = await driver.execute_query("CALL SHOW_INDEXES() RETURN index_name")
    present = {row["index_name"] for row in rows if isinstance(row, dict)}
    for table, name, fields in FULLTEXT_INDEXES:
        if name not in present:
            columns = ", ".join(f"'{f}'" for f in fields)
            await driver.execute_query(f"CALL CREATE_FTS_INDEX('{table}', '{name}', [{columns}]);")
    embedder = OpenAIEmbedder(
        OpenAIEmbedderConfig(embedding_model=embedder_model, embedding_dim=embedding_dims),
        client=openai_client,
    )
    return Graphiti(
        graph_driver=driver,
        llm_client=llm_client,
        embedder=embedder,
        # Never called: search ranks with reciprocal rank fusion, not a cross-encoder.
        cross_encoder=OpenAIRerankerClient(client=openai_client),
    )


def close_graph(graph: Any) -> None:
    """Release the Kùzu connection and database (Graphiti's driver leaves it to the GC)."""
    driver = graph.driver
    client = getattr(driver, "client", None)
    if client is not None:
        client.close()
    database = getattr(driver, "db", None)
    if database is not None:
        database.close()
