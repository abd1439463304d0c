"""The read model's ports: what GraphQL, REST and the CLI may ask of the lineage graph
(`ReadModel`) and of it by Marquez's keys (`MarquezReads`).

`reader.GraphReader` and `marquez_reads.MarquezReader` implement them over Neo4j (one Cypher
round trip per call); callers depend only on these protocols. The contract tests
(tests/contracts/read_model.py) hold every adapter, fake or real, to the same answers.
Every method takes the caller's `Scope`: a node of an unreadable project is answered exactly
like a node that does not exist, and traversals never pass through unreadable nodes. The
recipes' reads have ports of the same kind, each beside its Neo4j adapter (`*_reads.py`);
`readers.Readers` holds one of each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from provgraph.query.read.model import (
    EVERY_NODE,
    ColumnLineage,
    DatasetDetail,
    Direction,
    EdgeView,
    GraphPath,
    ImpactItem,
    JobDetail,
    Lineage,
    NodeView,
    NodeWhere,
    Page,
    RunDetail,
    Scope,
    Slice,
    VersionDetail,
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
        where: NodeWhere = EVERY_NODE,
        *,
        first: int = 50,
        after: str | None = None,
    ) -> Page:
        """Live nodes of a type passing `where`, ordered by (first_seen_at, id),
        cursor-paginated."""

    def search(
        self,
        text: str,
        scope: Scope,
        *,
        types: Sequence[str] = (),
        where: NodeWhere = EVERY_NODE,
        first: int = 50,
    ) -> list[NodeView]:
        """Case-insensitive substring search over names and ids of live nodes passing `where`,
        by id."""

    def projects(self, scope: Scope) -> list[str]:
        """The projects of the nodes the caller may read, by name (every project that has a
        node for a caller who reads everything); token holders' nodes do not count."""

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
        `types` keeps only nodes of those labels in the answer (traversal still passes).
        Upstream, a Dataset root first steps to its versions (what made them made it)."""

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

    def datasets_by_key(self, keys: Sequence[str], scope: Scope) -> list[NodeView | None]:
        """For each key, a Dataset or DatasetVersion with that provgraph id or with that
        Marquez id (`dataset:<OpenLineage namespace>:<name>`), in the order asked."""

    def column_lineage(
        self,
        dataset_id: str,
        scope: Scope,
        *,
        field: str | None = None,
        direction: Direction = Direction.UPSTREAM,
        depth: int = 5,
        limit: int = 1000,
    ) -> ColumnLineage | None:
        """The column-level graph around a dataset (a version answers for its dataset) or one
        of its fields, from the latest OpenLineage `columnLineage` facets, up to `depth` hops
        and `limit` columns; None when the dataset is absent or unreadable."""


class MarquezReads(Protocol):
    """What the Marquez read API asks (`http/marquez/`), by Marquez's keys: a namespace (an
    OpenLineage namespace, or a provgraph project for what was born in provgraph) and a name.
    Lists are offset pages (`limit`, `offset`: any non-negative integers, as Marquez takes them)
    with their true total, at most `page_max_size` items served; every read takes the caller's
    `Scope`, like `ReadModel`'s: what the caller may not read does not exist."""

    def resolve_marquez_id(self, marquez_id: str, scope: Scope) -> str | None:
        """The provgraph id of the Dataset or Job whose `marquez_id` is `marquez_id`."""

    def namespaces(
        self, scope: Scope, *, name: str | None = None, limit: int = 100, offset: int = 0
    ) -> Slice:
        """Namespaces (items: NamespaceView) by name; `name` keeps that one alone."""

    def datasets(self, namespace: str, scope: Scope, *, limit: int = 100, offset: int = 0) -> Slice:
        """Live datasets of a namespace by name (items: DatasetDetail)."""

    def dataset(self, namespace: str, name: str, scope: Scope) -> DatasetDetail | None:
        """One dataset by namespace and name."""

    def dataset_versions(
        self, namespace: str, name: str, scope: Scope, *, limit: int = 100, offset: int = 0
    ) -> Slice | None:
        """The versions of a dataset, newest first (items: VersionDetail); None: no dataset."""

    def dataset_version(
        self, namespace: str, name: str, version: str, scope: Scope
    ) -> VersionDetail | None:
        """One version of a dataset by its version label."""

    def jobs(self, namespace: str, scope: Scope, *, limit: int = 100, offset: int = 0) -> Slice:
        """Live jobs (and experiments) of a namespace by name (items: JobDetail)."""

    def job(self, namespace: str, name: str, scope: Scope) -> JobDetail | None:
        """One job (or experiment) by namespace and name, with its latest run."""

    def job_runs(
        self, namespace: str, name: str, scope: Scope, *, limit: int = 100, offset: int = 0
    ) -> Slice | None:
        """The runs of a job, newest first (items: RunDetail); None: no such job."""

    def run(self, run_id: str, scope: Scope) -> RunDetail | None:
        """One run by provgraph id (`run:<runId>`)."""

    def marquez_search(
        self,
        pattern: str,
        scope: Scope,
        *,
        kinds: Sequence[str] = (),
        by_update: bool = False,
        limit: int = 10,
    ) -> Slice:
        """Live datasets and jobs whose name matches `pattern` (a case-insensitive regular
        expression), by name or newest update first (items: NodeView)."""
