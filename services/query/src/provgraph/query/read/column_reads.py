"""The reads of column lineage: the `ColumnReads` port, the walk over it, and `ColumnReader`,
its adapter over Neo4j with its Cypher (one round trip per call).

`column_lineage` reads the start, then lets the pure walk of `column_walk.py` ask for each hop's
datasets: upstream by Marquez id (`marquez_ids.py`), downstream by a text filter on the stored
facets. Every read applies the caller's scope, so an unreadable dataset is never reached.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from provgraph.query.read import column_walk, columns
from provgraph.query.read.convert import node_view, scope_params
from provgraph.query.read.fragments import visible
from provgraph.query.read.marquez_ids import with_marquez_id
from provgraph.query.read.model import ColumnLineage, Direction, NodeView, Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import json_key

COLUMN_LINEAGE_JSON = json_key(columns.COLUMN_LINEAGE)
"""Where an OpenLineage-born Dataset keeps its latest `columnLineage` facet."""

# The node asked for, and the dataset a dataset version is a version of.
COLUMN_ROOT = f"""
MATCH (n:{Label.ENTITY} {{id: $id}})
WHERE {visible("n")}
OPTIONAL MATCH (n)-[:{Rel.VERSION_OF}]->(d:{Label.DATASET}:{Label.ENTITY})
WHERE {visible("d")}
RETURN n, d
"""

# Datasets (and dataset versions) by provgraph id or by Marquez id `dataset:<ns>:<name>`.
DATASETS_BY_KEY = f"""
UNWIND $keys AS key
CALL (key) {{
    MATCH {with_marquez_id("d", Label.DATASET, "key")}
    RETURN d
  UNION
    MATCH (d:{Label.ENTITY} {{id: key}})
    WHERE d:{Label.DATASET} OR d:{Label.DATASET_VERSION}
    RETURN d
}}
WITH key, d
WHERE {visible("d")}
RETURN key, d
ORDER BY key, d.id
"""

# Datasets whose latest facet may name one of $keys ({namespace, name}, each as its JSON text,
# quotes included): a text filter, bounded; read/column_walk.py checks every input field it keeps.
COLUMN_CONSUMERS = f"""
MATCH (d:{Label.DATASET}:{Label.ENTITY})
WHERE d.{COLUMN_LINEAGE_JSON} IS NOT NULL AND {visible("d")}
  AND any(k IN $keys WHERE d.{COLUMN_LINEAGE_JSON} CONTAINS k.namespace
                      AND d.{COLUMN_LINEAGE_JSON} CONTAINS k.name)
RETURN d
ORDER BY d.id
LIMIT $fetch
"""


class ColumnReads(Protocol):
    """What a column walk reads; every method takes the caller's `Scope`, like `ReadModel`'s:
    a dataset of an unreadable project is answered like a missing one."""

    def column_root(self, node_id: str, scope: Scope) -> tuple[NodeView, NodeView | None] | None:
        """The node `node_id` and the readable Dataset it is a version of (None when it is
        none's); None when the node is absent or unreadable."""

    def datasets_by_key(self, keys: Sequence[str], scope: Scope) -> list[NodeView | None]:
        """For each key, a Dataset with that Marquez id (`marquez_id`) or a Dataset or
        DatasetVersion with that provgraph id, in the order asked (None where none)."""

    def column_consumers(
        self, keys: Sequence[tuple[str, str]], scope: Scope, limit: int
    ) -> list[NodeView]:
        """At most `limit` Datasets by id whose latest `columnLineage` facet may name one of
        these OpenLineage (namespace, name) pairs (its text holds both: a superset)."""


def column_lineage(
    reads: ColumnReads,
    dataset_id: str,
    scope: Scope,
    *,
    field: str | None,
    direction: Direction,
    depth: int,
    limit: int,
) -> ColumnLineage | None:
    """The column-level graph around a dataset (a version answers for its dataset) or one of
    its fields: one read for the start, then one per hop and direction; None when the dataset
    is absent or unreadable. `depth` and `limit` come bounded by the caller."""
    found = reads.column_root(dataset_id, scope)
    root = columns.column_root(*found) if found is not None else None
    if root is None:
        return None

    def by_marquez_id(keys: Sequence[str]) -> list[NodeView]:
        return [view for view in reads.datasets_by_key(keys, scope) if view is not None]

    def consumers(keys: Sequence[tuple[str, str]]) -> list[NodeView]:
        return reads.column_consumers(keys, scope, limit)

    return column_walk.walk(
        root,
        field=field,
        direction=Direction(direction),
        depth=depth,
        limit=limit,
        by_marquez_id=by_marquez_id,
        consumers=consumers,
    )


class ColumnReader:
    """`ColumnReads` over Neo4j."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def column_root(self, node_id: str, scope: Scope) -> tuple[NodeView, NodeView | None] | None:
        """The node `node_id` and the readable Dataset it is a version of."""
        records = self._session.run(COLUMN_ROOT, {**scope_params(scope), "id": node_id})
        if not records:
            return None
        dataset = records[0]["d"]
        return node_view(records[0]["n"]), node_view(dataset) if dataset is not None else None

    def datasets_by_key(self, keys: Sequence[str], scope: Scope) -> list[NodeView | None]:
        """For each key, a Dataset or DatasetVersion with that provgraph id or Marquez id."""
        params = {**scope_params(scope), "keys": list(keys)}
        found: dict[str, NodeView] = {}
        for r in self._session.run(DATASETS_BY_KEY, params):
            found.setdefault(str(r["key"]), node_view(r["d"]))
        return [found.get(key) for key in keys]

    def column_consumers(
        self, keys: Sequence[tuple[str, str]], scope: Scope, limit: int
    ) -> list[NodeView]:
        """The Datasets whose facet may name one of `keys`, at most `limit`."""
        params = {**scope_params(scope), "keys": columns.consumer_keys(keys), "fetch": limit}
        return [node_view(r["d"]) for r in self._session.run(COLUMN_CONSUMERS, params)]
