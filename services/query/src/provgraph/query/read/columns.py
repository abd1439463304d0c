"""Column lineage from OpenLineage `columnLineage` facets: reading the facet, and the walk.

An OpenLineage-born Dataset node keeps its latest facet as `column_lineage_json`::

    {"fields": {"<output field>": {"inputFields": [{"namespace": .., "name": .., "field": ..,
                "transformations": [{"type": .., "subtype": .., "description": ..}]}],
                "transformationDescription": .., "transformationType": ..}}}

Input fields name datasets by OpenLineage (namespace, name), which the node's `marquez_id`
(`dataset:<namespace>:<name>`, `marquez_ids.py`) finds. The walk is pure: it goes hop by hop,
and asks the callables it is given for the datasets of the next hop (`column_reads.py` answers
each with one read filtered to the caller's scope, so an unreadable dataset is never reached):
upstream, the datasets the frontier's input fields name; downstream, the datasets whose facets
name the frontier's datasets. Depth and the number of columns are bounded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.marquez_ids import marquez_id
from provgraph.query.read.model import (
    ColumnEdge,
    ColumnKey,
    ColumnLineage,
    ColumnNode,
    Direction,
    NodeView,
)
from provgraph.schemas.graph import MARQUEZ_ID, Label
from provgraph.schemas.storage import decode_json, encode_json

COLUMN_LINEAGE = "column_lineage"
"""The nested property holding the facet (`column_lineage_json`)."""
SCHEMA = "schema"
OL_NAMESPACE, OL_NAME = "ol_namespace", "ol_name"

ByMarquezId = Callable[[Sequence[str]], Sequence[NodeView]]
"""The readable datasets whose `marquez_id` is one of these."""
Consumers = Callable[[Sequence[tuple[str, str]]], Sequence[NodeView]]
"""The readable datasets whose facet may name one of these (namespace, name) pairs (a
superset is fine: the walk checks each input field)."""


def column_root(node: NodeView, dataset: NodeView | None) -> NodeView | None:
    """Where a column walk starts: a Dataset as it is, a DatasetVersion's (readable) Dataset;
    any other node is `invalid_argument`."""
    if node.type == Label.DATASET:
        return node
    if node.type == Label.DATASET_VERSION:
        return dataset
    raise InvalidArgumentError(
        f"column lineage starts at a dataset, not a {node.type}", id=node.id, type=node.type
    )


def consumer_keys(keys: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """(namespace, name) pairs as the text the stored facet holds them in (canonical JSON
    strings, quotes included): what `column_reads.COLUMN_CONSUMERS` looks for."""
    return [{"namespace": encode_json(ns), "name": encode_json(name)} for ns, name in keys]


def marquez_dataset_id(namespace: str, name: str) -> str:
    """Marquez's id of an OpenLineage dataset, as the projection stores it in `marquez_id`."""
    return marquez_id("dataset", namespace, name)


@dataclass(frozen=True)
class InputField:
    """One input field of one output field, as the facet says it."""

    namespace: str
    name: str
    field: str
    output: str
    transformation_description: str | None = None
    transformation_type: str | None = None
    transformations: tuple[Mapping[str, Any], ...] = ()

    @property
    def dataset(self) -> str:
        """The Marquez id of the dataset it names."""
        return marquez_dataset_id(self.namespace, self.name)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _input_field(output: str, spec: Mapping[str, Any], raw: Any) -> InputField | None:
    if not isinstance(raw, Mapping):
        return None
    namespace, name, column = (_text(raw.get(k)) for k in ("namespace", "name", "field"))
    if namespace is None or name is None or column is None:
        return None
    steps = tuple(t for t in raw.get("transformations") or () if isinstance(t, Mapping))
    first = steps[0] if steps else {}
    return InputField(
        namespace=namespace,
        name=name,
        field=column,
        output=output,
        # The facet's older per-output description wins; else the first transformation's.
        transformation_description=_text(spec.get("transformationDescription"))
        or _text(first.get("description")),
        transformation_type=_text(spec.get("transformationType")) or _text(first.get("type")),
        transformations=tuple(dict(t) for t in steps),
    )


def facet_inputs(facet: Any) -> tuple[InputField, ...]:
    """Every (output field, input field) pair of a facet, in a stable order; malformed parts
    are left out (an archived facet should not fail an answer)."""
    fields = facet.get("fields") if isinstance(facet, Mapping) else None
    if not isinstance(fields, Mapping):
        return ()
    found: list[InputField] = []
    for output in sorted(k for k in fields if isinstance(k, str)):
        spec = fields[output]
        if not isinstance(spec, Mapping):
            continue
        for raw in spec.get("inputFields") or ():
            parsed = _input_field(output, spec, raw)
            if parsed is not None:
                found.append(parsed)
    return tuple(found)


def field_types(props: Mapping[str, Any]) -> dict[str, str]:
    """{field: type} from the dataset's `schema` facet (empty when absent)."""
    facet = decode_json(props, SCHEMA)
    items = facet.get("fields") if isinstance(facet, Mapping) else None
    types: dict[str, str] = {}
    for item in items if isinstance(items, list) else ():
        if isinstance(item, Mapping) and _text(item.get("name")) and _text(item.get("type")):
            types[str(item["name"])] = str(item["type"])
    return types


@dataclass(frozen=True)
class Source:
    """A Dataset node as the walk reads it."""

    view: NodeView
    inputs: tuple[InputField, ...]
    types: Mapping[str, str]

    @property
    def ol_key(self) -> tuple[str, str] | None:
        """Its OpenLineage (namespace, name), when it has one."""
        namespace, name = (
            _text(self.view.props.get(OL_NAMESPACE)),
            _text(self.view.props.get(OL_NAME)),
        )
        return (namespace, name) if namespace and name else None

    @property
    def marquez_id(self) -> str | None:
        stored = _text(self.view.props.get(MARQUEZ_ID))
        key = self.ol_key
        return stored or (marquez_dataset_id(*key) if key else None)


def source(view: NodeView) -> Source:
    """The walk's reading of a Dataset node: its facet's input fields and its field types."""
    props = view.props
    return Source(view, facet_inputs(decode_json(props, COLUMN_LINEAGE)), field_types(props))


Frontier = Mapping[str, set[str] | None]
"""Dataset id -> the fields to go on from (None: every field)."""


@dataclass
class _Graph:
    """What the walk found so far: columns with their depth, and edges."""

    limit: int
    sources: dict[str, Source] = field(default_factory=dict)
    by_marquez: dict[str, Source] = field(default_factory=dict)
    depths: dict[ColumnKey, int] = field(default_factory=dict)
    edges: dict[tuple[ColumnKey, ColumnKey], ColumnEdge] = field(default_factory=dict)
    truncated: bool = False

    def know(self, views: Iterable[NodeView]) -> None:
        for view in sorted(views, key=lambda v: v.id):
            found = self.sources.setdefault(view.id, source(view))
            key = found.marquez_id
            if key is not None:
                self.by_marquez.setdefault(key, found)

    def reach(self, key: ColumnKey, depth: int) -> bool:
        """Keep a column at `depth` (its smallest one); False when the column cap refuses it."""
        if key in self.depths:
            self.depths[key] = min(self.depths[key], depth)
            return True
        if len(self.depths) >= self.limit:
            self.truncated = True
            return False
        self.depths[key] = depth
        return True

    def link(self, src: ColumnKey, dst: ColumnKey, spec: InputField) -> None:
        if src in self.depths and dst in self.depths:
            self.edges.setdefault(
                (src, dst),
                ColumnEdge(
                    input=src,
                    output=dst,
                    transformation_description=spec.transformation_description,
                    transformation_type=spec.transformation_type,
                    transformations=spec.transformations,
                ),
            )


def _upstream(
    graph: _Graph, root: Source, field: str | None, depth: int, fetch: ByMarquezId
) -> None:
    frontier: Frontier = {root.view.id: None if field is None else {field}}
    seen: set[ColumnKey] = set()
    asked: set[str] = set()
    for level in range(1, depth + 1):
        pending = [
            (graph.sources[ds], spec)
            for ds, fields in sorted(frontier.items())
            for spec in graph.sources[ds].inputs
            if fields is None or spec.output in fields
        ]
        wanted = sorted({s.dataset for _, s in pending} - graph.by_marquez.keys() - asked)
        if wanted:
            asked.update(wanted)
            graph.know(fetch(wanted))
        following: dict[str, set[str]] = {}
        for out, spec in pending:
            found = graph.by_marquez.get(spec.dataset)
            if found is None:
                continue  # absent, or of a project the caller may not read
            src, dst = ColumnKey(found.view.id, spec.field), ColumnKey(out.view.id, spec.output)
            graph.reach(dst, level - 1)
            if graph.reach(src, level) and src not in seen:
                seen.add(src)
                following.setdefault(src.dataset, set()).add(src.field)
            graph.link(src, dst, spec)
        if not following:
            return
        frontier = following


def _downstream(
    graph: _Graph, root: Source, field: str | None, depth: int, fetch: Consumers
) -> None:
    frontier: Frontier = {root.view.id: None if field is None else {field}}
    seen: set[ColumnKey] = set()
    for level in range(1, depth + 1):
        named: dict[tuple[str, str], str] = {}
        for ds in frontier:
            key = graph.sources[ds].ol_key
            if key is not None:
                named[key] = ds
        if not named:
            return
        found = fetch(sorted(named))
        if len(found) >= graph.limit:
            graph.truncated = True  # the reader's scan is capped at `limit` datasets
        graph.know(found)
        following: dict[str, set[str]] = {}
        for consumer in sorted(graph.sources.values(), key=lambda s: s.view.id):
            for spec in consumer.inputs:
                fed = named.get((spec.namespace, spec.name))
                if fed is None or not _goes_on(frontier[fed], spec.field):
                    continue
                src, dst = ColumnKey(fed, spec.field), ColumnKey(consumer.view.id, spec.output)
                graph.reach(src, level - 1)
                if graph.reach(dst, level) and dst not in seen:
                    seen.add(dst)
                    following.setdefault(dst.dataset, set()).add(dst.field)
                graph.link(src, dst, spec)
        if not following:
            return
        frontier = following


def _goes_on(fields: set[str] | None, name: str) -> bool:
    return fields is None or name in fields


def walk(
    root: NodeView,
    *,
    field: str | None,
    direction: Direction,
    depth: int,
    limit: int,
    by_marquez_id: ByMarquezId,
    consumers: Consumers,
) -> ColumnLineage:
    """The column-level graph within `depth` hops of `root` (or of its column `field`), at
    most `limit` columns; `root` must already be readable (the caller looked it up)."""
    graph = _Graph(limit)
    graph.know([root])
    start = graph.sources[root.id]
    if field is not None:
        graph.reach(ColumnKey(root.id, field), 0)
    if direction in (Direction.UPSTREAM, Direction.BOTH):
        _upstream(graph, start, field, depth, by_marquez_id)
    if direction in (Direction.DOWNSTREAM, Direction.BOTH):
        _downstream(graph, start, field, depth, consumers)
    return _answer(graph, root, field)


def _answer(graph: _Graph, root: NodeView, field: str | None) -> ColumnLineage:
    nodes = tuple(
        ColumnNode(
            key=key,
            dataset=graph.sources[key.dataset].view,
            depth=level,
            field_type=graph.sources[key.dataset].types.get(key.field),
        )
        for key, level in sorted(graph.depths.items(), key=lambda item: (item[1], item[0]))
    )
    edges = tuple(edge for _, edge in sorted(graph.edges.items()))
    return ColumnLineage(root, field, nodes, edges, graph.truncated)
