"""The lineage of a node as a W3C PROV document (PROV-JSON, PROV-N or PROV-XML), built with the
`prov` package from what the read model answers: the `ReadModel.lineage` walk (nodes, edges,
the times nodes record) and who acted on each node (`ProvReads.actors`).

A view over the lineage answer, never a second walk: the nodes and edges of the document are
exactly those GraphQL's `lineage` answers for the same id, direction and depth. Every id and
attribute of provgraph's own is in the `provgraph:` namespace; each relation says which edge it
stands for (`provgraph:rel`), except `specializationOf`, which PROV gives no attributes and
only VERSION_OF becomes. docs/audit.md ("W3C PROV export") holds the same table as below.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from prov.model import ProvDocument

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.convert import bounded
from provgraph.query.read.model import Direction, EdgeView, Lineage, NodeView, Scope
from provgraph.query.read.ports import ReadModel
from provgraph.query.read.prov_reads import Acted, ProvReads
from provgraph.query.read.readers import Readers
from provgraph.query.settings import QuerySettings
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import FIRST_SEEN_AT

PREFIX = "provgraph"
NAMESPACE = "https://provgraph.dev/ns/prov#"

ENTITY = "entity"
ACTIVITY = "activity"
ACTIVITIES = frozenset({Label.RUN, Label.EVALUATION, Label.DEPLOYMENT})
"""Node types that are PROV activities; every other is an entity (`provgraph:type` says which)."""
PLANS = frozenset({Label.EXPERIMENT, Label.JOB})
"""Entities that are plans of the runs part of them (`prov:type` prov:Plan)."""

RELATIONS: Mapping[Rel, tuple[str, str | None]] = {
    Rel.GENERATED_BY: ("wasGeneratedBy", None),
    Rel.USED: ("used", None),  # the role the edge records (train, validation, eval, input...)
    Rel.DERIVED_FROM: ("wasDerivedFrom", None),
    Rel.EXPORTED_FROM: ("wasDerivedFrom", None),
    Rel.BASED_ON: ("wasDerivedFrom", None),
    Rel.VERSION_OF: ("specializationOf", None),
    Rel.STARTED_FROM: ("used", "started_from"),
    Rel.RESUMED_FROM: ("used", "resumed_from"),
    Rel.RAN_IN: ("used", "environment"),
    Rel.EVALUATED: ("used", "evaluated"),
    Rel.SERVES: ("used", "serves"),
    Rel.READS: ("used", "reads"),
    Rel.CHILD_OF: ("wasInformedBy", None),
    Rel.SCALED_FROM: ("wasInformedBy", None),  # a scale-up informed by its pilot
    Rel.PART_OF: ("wasInfluencedBy", None),
}
"""Each edge type, (derived)-[:REL]->(source), as a PROV relation (subject: the derived node)
and the `prov:role` of the usage when the edge records none."""

ENDS: Mapping[str, tuple[str, str] | None] = {
    "wasGeneratedBy": (ENTITY, ACTIVITY),
    "used": (ACTIVITY, ENTITY),
    "wasDerivedFrom": (ENTITY, ENTITY),
    "specializationOf": (ENTITY, ENTITY),
    "wasInformedBy": (ACTIVITY, ACTIVITY),
    "wasInfluencedBy": None,  # any two elements
}
"""The kinds PROV asks of each relation's subject and object. An edge whose ends are not of
those kinds (an evaluation GENERATED_BY a run: two activities) becomes `wasInformedBy` between
two activities, else `wasInfluencedBy`."""

ACTIVITY_TIMES: Mapping[str, tuple[str, str]] = {
    Label.RUN: ("started_at", "ended_at"),
    Label.EVALUATION: ("evaluated_at", "evaluated_at"),
    Label.DEPLOYMENT: ("created_at", "retired_at"),
}
"""The properties of an activity's `prov:startTime` and `prov:endTime`, where recorded."""
GENERATION_TIMES = ("created_at", "saved_at", "registered_at")
"""The property (the first recorded) of an entity's `wasGeneratedBy` time; without one, the
time the edge was first recorded, which is also the time of a usage (`used`)."""
_EDGE_OWN = frozenset({"role", FIRST_SEEN_AT})
"""Edge properties said otherwise than as `provgraph:` attributes (`prov:role`, the time)."""
ATTRIBUTES = (
    "name", "version", "status", "storage_uri", "uri", "checksum", "step", "run_number",
    "number", "key", "suite", "endpoint",
)  # fmt: skip
"""Node properties copied as `provgraph:<name>` attributes, when recorded."""
AGENT_TYPES = {"user:": "prov:Person", "service:": "prov:SoftwareAgent"}
"""An agent's `prov:type` by the prefix of its name."""

FORMATS: Mapping[str, tuple[str, str]] = {
    "prov-json": ("json", "application/json"),
    "prov-n": ("provn", "text/provenance-notation"),
    "prov-xml": ("xml", "application/provenance+xml"),
}
"""Each export format: the `prov` package's serializer and the media type of the answer."""
_BY_TYPE = {rel.value: row for rel, row in RELATIONS.items()}
DIRECTIONS = {"up": Direction.UPSTREAM, "down": Direction.DOWNSTREAM}


def qualified(name: str) -> str:
    """A provgraph id or name as a qualified name of the `provgraph:` namespace."""
    return f"{PREFIX}:{name}"


def kind_of(node: NodeView) -> str:
    """`activity` for runs, evaluations and deployments, else `entity`."""
    return ACTIVITY if node.type in ACTIVITIES else ENTITY


def relation_of(rel: str, src: str, dst: str) -> tuple[str, str | None]:
    """The PROV relation (and default role) of an edge `rel` from a node of kind `src` to one
    of kind `dst`."""
    relation, role = _BY_TYPE.get(rel, ("wasInfluencedBy", None))
    ends = ENDS[relation]
    if ends is None or ends == (src, dst):
        return relation, role
    return ("wasInformedBy" if (src, dst) == (ACTIVITY, ACTIVITY) else "wasInfluencedBy"), None


def export_format(name: str) -> tuple[str, str]:
    """The serializer and media type of format `name`; InvalidArgumentError for another."""
    if name not in FORMATS:
        raise InvalidArgumentError(f"format must be one of {', '.join(FORMATS)}", format=name)
    return FORMATS[name]


def export_direction(name: str) -> Direction:
    """The walk of `up` or `down`; InvalidArgumentError for another."""
    if name not in DIRECTIONS:
        raise InvalidArgumentError("direction must be up or down", direction=name)
    return DIRECTIONS[name]


def _scalars(values: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    return {
        qualified(key): values[key]
        for key in keys
        if isinstance(values.get(key), str | int | float) and not isinstance(values[key], bool)
    }


def _element(document: ProvDocument, node: NodeView) -> None:
    attributes: dict[str, Any] = {qualified("type"): node.type, **_scalars(node.props, ATTRIBUTES)}
    if node.project is not None:
        attributes[qualified("project")] = node.project
    if node.deleted_at is not None:
        attributes[qualified("deleted_at")] = node.deleted_at
    if node.placeholder:
        attributes[qualified("placeholder")] = "true"
    if node.type in PLANS:
        attributes["prov:type"] = "prov:Plan"
    if kind_of(node) == ACTIVITY:
        start, end = ACTIVITY_TIMES[node.type]
        props = node.props
        document.activity(qualified(node.id), props.get(start), props.get(end), attributes)
    else:
        document.entity(qualified(node.id), attributes)


def _relation(
    document: ProvDocument, edge: EdgeView, nodes: Mapping[str, NodeView], kinds: Mapping[str, str]
) -> None:
    src, dst = qualified(edge.src), qualified(edge.dst)
    relation, role = relation_of(edge.type, kinds[edge.src], kinds[edge.dst])
    if relation == "specializationOf":
        document.specializationOf(src, dst)
        return
    attributes: dict[str, Any] = {qualified("rel"): edge.type}
    attributes.update(_scalars(edge.props, sorted(set(edge.props) - _EDGE_OWN)))
    recorded = edge.props.get(FIRST_SEEN_AT)  # when the edge was first recorded
    if relation == "used":
        role = edge.props.get("role") or role
        attributes.update({"prov:role": role} if role else {})
        document.used(src, dst, recorded, other_attributes=attributes)
    elif relation == "wasGeneratedBy":
        made = nodes[edge.src].props
        at = next((made[key] for key in GENERATION_TIMES if made.get(key)), recorded)
        document.wasGeneratedBy(src, dst, at, other_attributes=attributes)
    elif relation == "wasDerivedFrom":
        document.wasDerivedFrom(src, dst, other_attributes=attributes)
    elif relation == "wasInformedBy":
        document.wasInformedBy(src, dst, other_attributes=attributes)
    else:
        document.wasInfluencedBy(src, dst, other_attributes=attributes)


def _agents(
    document: ProvDocument, node: NodeView, acted: Sequence[Acted], known: set[str]
) -> None:
    for who in acted:
        agent = qualified(who.actor)
        if who.actor not in known:
            known.add(who.actor)
            kind = next((t for p, t in AGENT_TYPES.items() if who.actor.startswith(p)), None)
            document.agent(agent, {"prov:type": kind} if kind else None)
        attributes = {qualified("principal"): who.principal} if who.principal else None
        if kind_of(node) == ACTIVITY:
            document.wasAssociatedWith(qualified(node.id), agent, other_attributes=attributes)
        else:
            document.wasAttributedTo(qualified(node.id), agent, other_attributes=attributes)


def prov_document(lineage: Lineage, acted: Mapping[str, Sequence[Acted]]) -> ProvDocument:
    """The PROV document of `lineage`: each node an entity or an activity, each edge a relation,
    each actor in `acted` (by node id) an agent associated with (activities) or to whom is
    attributed (entities) what it acted on. Elements in the walk's order, then relations."""
    document = ProvDocument()
    document.add_namespace(PREFIX, NAMESPACE)
    nodes = {node.id: node for node in (lineage.root, *lineage.nodes)}
    for node in nodes.values():
        _element(document, node)
    kinds = {node_id: kind_of(node) for node_id, node in nodes.items()}
    for edge in lineage.edges:
        if edge.src in nodes and edge.dst in nodes:
            _relation(document, edge, nodes, kinds)
    known: set[str] = set()
    for node in nodes.values():
        _agents(document, node, acted.get(node.id, ()), known)
    return document


def serialized(document: ProvDocument, format_name: str) -> str:
    """`document` in format `format_name` (`FORMATS`)."""
    serializer, _ = export_format(format_name)
    if serializer == "provn":
        return document.get_provn()
    text = document.serialize(format=serializer, indent=2)
    assert text is not None
    return text


@dataclass(frozen=True)
class ProvExport:
    """A PROV document and whether the walk it stands for hit the node cap (`truncated`)."""

    document: ProvDocument
    truncated: bool


class ProvExporter:
    """The PROV export of a node's lineage, read through the read model's ports."""

    def __init__(self, graph: ReadModel, prov: ProvReads, *, max_depth: int, limit: int) -> None:
        self._graph, self._prov = graph, prov
        self._max_depth, self._limit = max_depth, limit

    def export(
        self, node_id: str, scope: Scope, *, direction: Direction, depth: int
    ) -> ProvExport | None:
        """The export of `node_id`'s lineage; None when the node is absent or unreadable;
        InvalidArgumentError for a depth outside 1..max_depth."""
        depth = bounded("depth", depth, self._max_depth)
        lineage = self._graph.lineage(
            node_id, scope, direction=direction, depth=depth, limit=self._limit
        )
        if lineage is None:
            return None
        ids = [node.id for node in (lineage.root, *lineage.nodes)]
        acted = dict(zip(ids, self._prov.actors(ids, scope), strict=True))
        return ProvExport(prov_document(lineage, acted), lineage.truncated)


def exporter(readers: Readers, settings: QuerySettings) -> ProvExporter:
    """The exporter over `readers`, bounded as every lineage walk (`lineage_max_depth`,
    `lineage_default_limit` nodes)."""
    return ProvExporter(
        readers.graph,
        readers.prov,
        max_depth=settings.lineage_max_depth,
        limit=settings.lineage_default_limit,
    )
