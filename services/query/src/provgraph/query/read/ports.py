"""The read model's port: what every reader of the graph may ask.

`provgraph.query.read.reader.GraphReader` implements it over Neo4j (one Cypher round trip per
call); GraphQL, REST and the CLI depend only on this protocol. The contract tests
(tests/read_model_contract.py) hold every adapter, fake or real, to the same answers.
Every method takes the caller's `Scope`: a node of an unreadable project is answered exactly
like a node that does not exist, and traversals never pass through unreadable nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from provgraph.query.read.model import (
    Direction,
    EdgeView,
    GraphPath,
    ImpactItem,
    Lineage,
    NodeView,
    Page,
    Scope,
)


class ReadModel(Protocol):
    """Read access to the lineage graph."""

    def node(self, node_id: str, scope: Scope, as_of: str | None = None) -> NodeView | None:
        """One node by id; None when absent, unreadable, or first seen after `as_of`."""

    def nodes(
        self, ids: Sequence[str], scope: Scope, as_of: str | None = None
    ) -> list[NodeView | None]:
        """Many nodes by id, in the order asked (the DataLoader batch)."""

    def neighbours(
        self,
        ids: Sequence[str],
        rel: str,
        direction: Direction,
        scope: Scope,
        as_of: str | None = None,
    ) -> list[list[tuple[EdgeView, NodeView]]]:
        """For each id, its `rel` neighbours (UPSTREAM: outgoing, DOWNSTREAM: incoming)."""

    def find(
        self,
        type: str,
        scope: Scope,
        *,
        project: str | None = None,
        name: str | None = None,
        version: str | None = None,
        number: int | None = None,
    ) -> NodeView | None:
        """Lookup by natural key: (Model)Version by name + version, DatasetVersion by dataset
        name + version label, Experiment by number (within `project` when given)."""

    def list_nodes(
        self,
        type: str,
        scope: Scope,
        *,
        project: str | None = None,
        experiment: str | None = None,
        status: str | None = None,
        since: str | None = None,
        until: str | None = None,
        param: tuple[str, str] | None = None,
        first: int = 50,
        after: str | None = None,
    ) -> Page:
        """Nodes of a type with filters, ordered by (first_seen_at, id), cursor-paginated."""

    def search(
        self, text: str, scope: Scope, *, types: Sequence[str] = (), first: int = 50
    ) -> list[NodeView]:
        """Case-insensitive substring search over names and ids."""

    def lineage(
        self,
        node_id: str,
        scope: Scope,
        *,
        direction: Direction = Direction.UPSTREAM,
        depth: int = 5,
        types: Sequence[str] = (),
        as_of: str | None = None,
        limit: int = 1000,
    ) -> Lineage | None:
        """Breadth-first distinct nodes up to `depth` and `limit` (truncated when a cap hits);
        `types` keeps only nodes of those labels in the answer (traversal still passes)."""

    def impact(
        self, node_id: str, scope: Scope, as_of: str | None = None
    ) -> list[ImpactItem] | None:
        """Live ModelVersions and Deployments downstream, each with one shortest path."""

    def paths(
        self, src: str, dst: str, scope: Scope, *, max_depth: int = 20
    ) -> list[GraphPath] | None:
        """The shortest lineage path(s) between two nodes, either direction."""

    def history(
        self, node_id: str, scope: Scope, *, first: int = 50, after: str | None = None
    ) -> Page | None:
        """The events that touched the node, newest first (items: HistoryEntry)."""

    def artifact(
        self, scope: Scope, *, uri: str | None = None, checksum: str | None = None
    ) -> list[NodeView]:
        """DatasetVersions, Checkpoints and ModelVersions stored at `uri` or with `checksum`."""
