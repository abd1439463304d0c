"""What the read model answers: plain, frozen views of nodes, edges and query results.

The GraphQL layer, the REST layer and the CLI all render these; none of them touch Neo4j.
Timestamps are the projector's fixed-width UTC strings (`2026-01-05T09:00:00.000000Z`), so
they compare correctly as strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

T = TypeVar("T")


class Direction(StrEnum):
    """Upstream = follow outgoing edges (towards sources); downstream = incoming."""

    UPSTREAM = "UPSTREAM"
    DOWNSTREAM = "DOWNSTREAM"
    BOTH = "BOTH"


@dataclass(frozen=True)
class Scope:
    """The projects a caller may read. `None` means every project (global admins and auditors,
    and in-process callers such as the CLI, which reads Neo4j with its own credentials).

    Every read path takes one and applies it in one place (the read model's Cypher), so that
    isolation is a filter that already exists, not a retrofit.
    """

    projects: frozenset[str] | None = None

    @classmethod
    def everything(cls) -> Scope:
        return cls(None)

    def allows(self, project: str | None) -> bool:
        return self.projects is None or (project is not None and project in self.projects)


@dataclass(frozen=True)
class NodeWhere:
    """What listed or searched nodes must also be; an unset filter holds for every node.

    `project`; `experiment` (an experiment id the node is part of); `status`; `since`/`until`
    (first seen, inclusive/exclusive); `param` = (name, value): a run parameter equal to the
    value as text, or as a number when the value is one; `uses`: a dataset version id the node
    used, or the run that generated it used.
    """

    project: str | None = None
    experiment: str | None = None
    status: str | None = None
    since: str | None = None
    until: str | None = None
    param: tuple[str, str] | None = None
    uses: str | None = None


EVERY_NODE = NodeWhere()
"""No filter: every node passes."""


def built(cls: type[T], values: dict[str, Any]) -> T:
    """An instance of the frozen dataclass `cls` holding `values`, one for each of its fields:
    equal to `cls(**values)`, and as frozen, but set in one step instead of the generated
    `__init__`'s `object.__setattr__` per field (half the time). For the reader's conversion of
    records, which makes a view for each of up to 10,000 nodes and edges of an answer."""
    instance = object.__new__(cls)
    instance.__dict__.update(values)
    return instance


@dataclass(frozen=True)
class NodeView:
    """One node: its label as `type` (e.g. "ModelVersion"), bookkeeping, and its properties.

    `props` holds every stored property except the bookkeeping lifted into fields and the
    internal version stamps; nested values stay JSON text as stored (`provgraph.schemas.storage`
    decodes them).
    """

    id: str
    type: str
    project: str | None
    first_seen_at: str | None
    last_event_at: str | None
    deleted_at: str | None
    placeholder: bool
    props: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EdgeView:
    """One relationship, from the derived node to its source (W3C PROV direction)."""

    src: str
    dst: str
    type: str
    props: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Lineage:
    """A bounded traversal: distinct nodes (each with its BFS depth) and the edges among them."""

    root: NodeView
    nodes: tuple[NodeView, ...]
    depths: Mapping[str, int]
    edges: tuple[EdgeView, ...]
    truncated: bool


@dataclass(frozen=True)
class GraphPath:
    """A path as alternating nodes and edges: nodes[i] -edges[i]- nodes[i+1]."""

    nodes: tuple[NodeView, ...]
    edges: tuple[EdgeView, ...]


@dataclass(frozen=True)
class ImpactItem:
    """A live ModelVersion or Deployment downstream of the start, with one shortest path."""

    node: NodeView
    path: GraphPath


@dataclass(frozen=True)
class HistoryEntry:
    """One event that touched a node; `project` is the event's own (always one the caller
    may read)."""

    event_id: str
    event_type: str
    occurred_at: str
    producer: str | None
    actor: str | None
    subject: str | None
    project: str
    principal: str | None = None
    """Who ingest authenticated for the event (`actor` is the client's claim); None for an
    event written straight to Kafka."""
    logged_at: str | None = None
    """When the broker appended the event (server time; `occurred_at` is the client's)."""


@dataclass(frozen=True)
class Page:
    """A page of items and the opaque cursor of the next page (None at the end)."""

    items: tuple[Any, ...]
    next_cursor: str | None


@dataclass(frozen=True, order=True)
class ColumnKey:
    """One column: a Dataset node's id and a field name."""

    dataset: str
    field: str


@dataclass(frozen=True)
class ColumnNode:
    """A column of the column-level graph, the dataset it belongs to and its walk depth."""

    key: ColumnKey
    dataset: NodeView
    depth: int
    field_type: str | None = None
    """The field's type when the dataset's `schema` facet names it."""


@dataclass(frozen=True)
class ColumnEdge:
    """An input column feeding an output column (data flow), as an OpenLineage
    `columnLineage` facet says it; the transformation when the facet gives one."""

    input: ColumnKey
    output: ColumnKey
    transformation_description: str | None = None
    transformation_type: str | None = None
    transformations: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class ColumnLineage:
    """The column-level graph around a dataset (or one of its fields), from the latest
    `columnLineage` facets; `truncated` when the column cap was hit."""

    root: NodeView
    field: str | None
    nodes: tuple[ColumnNode, ...]
    edges: tuple[ColumnEdge, ...]
    truncated: bool


# ---- the Marquez read API's views (`http/marquez/`) --------------------------------------------


@dataclass(frozen=True)
class Slice:
    """One offset page of a list and the length of the whole list (Marquez's `totalCount`)."""

    items: tuple[Any, ...]
    total: int


@dataclass(frozen=True)
class NamespaceView:
    """A Marquez namespace: an OpenLineage namespace, or a provgraph project for the datasets and
    jobs born in provgraph. Times span its readable datasets and jobs; `owner` is the project
    (the first by name when an OpenLineage namespace spans several)."""

    name: str
    created_at: str | None
    updated_at: str | None
    owner: str | None


@dataclass(frozen=True)
class VersionRef:
    """A dataset version with the dataset it is a version of, and the relationship's properties
    (a run's USED: `role`, and `inferred` when the projection inferred the version)."""

    version: NodeView
    dataset: NodeView
    props: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RunDetail:
    """A run, the job (or experiment) it is part of, the versions it used and generated, and the
    datasets it read without naming a version (`reads`)."""

    run: NodeView
    job: NodeView | None
    inputs: tuple[VersionRef, ...]
    outputs: tuple[VersionRef, ...]
    reads: tuple[NodeView, ...] = ()


@dataclass(frozen=True)
class DatasetDetail:
    """A dataset and its current version (the latest by `created_at`), if it has one."""

    dataset: NodeView
    current: NodeView | None


@dataclass(frozen=True)
class VersionDetail:
    """A dataset version, its dataset, and the run that generated it."""

    version: NodeView
    dataset: NodeView
    created_by: RunDetail | None


@dataclass(frozen=True)
class JobDetail:
    """A job (or experiment) and its latest run (by start), if it has one."""

    job: NodeView
    latest_run: RunDetail | None
