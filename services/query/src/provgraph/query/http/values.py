"""Neo4j result values as JSON: nodes, relationships, paths, temporal and spatial values.

Internal version stamps (`provgraph.schemas.storage`) are never exposed.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping
from typing import Any

from neo4j.graph import Node, Path, Relationship
from neo4j.spatial import Point
from neo4j.time import Date, DateTime, Duration, Time

from provgraph.schemas import storage


def public_properties(props: Mapping[str, Any]) -> dict[str, Any]:
    """Stored properties without the projector's version stamps, by key (`storage.public`)."""
    return {key: to_json(value) for key, value in storage.public(props).items()}


def node_json(node: Node) -> dict[str, Any]:
    """{id, element_id, labels, properties}: `id` is provgraph's id (None on bookkeeping nodes)."""
    return {
        "id": node.get("id"),
        "element_id": node.element_id,
        "labels": sorted(node.labels),
        "properties": public_properties(dict(node.items())),
    }


def relationship_json(rel: Relationship) -> dict[str, Any]:
    """{type, start, end, element_id, properties}: start/end are provgraph ids when present."""
    start, end = rel.start_node, rel.end_node
    return {
        "type": rel.type,
        "start": _end_id(start),
        "end": _end_id(end),
        "element_id": rel.element_id,
        "properties": public_properties(dict(rel.items())),
    }


def _end_id(node: Node | None) -> Any:
    if node is None:
        return None
    return node.get("id", node.element_id)


def path_json(path: Path) -> dict[str, Any]:
    """{nodes, relationships} in path order."""
    return {
        "nodes": [node_json(node) for node in path.nodes],
        "relationships": [relationship_json(rel) for rel in path.relationships],
    }


def to_json(value: Any) -> Any:
    """Any value Neo4j returns, as something `json.dumps` accepts (strict: no NaN)."""
    if isinstance(value, Node):
        return node_json(value)
    if isinstance(value, Relationship):
        return relationship_json(value)
    if isinstance(value, Path):
        return path_json(value)
    if isinstance(value, Duration | Point):  # tuples, but one value each
        return _scalar(value)
    if isinstance(value, list | tuple):
        return [to_json(item) for item in value]
    if isinstance(value, dict):
        return {str(key): to_json(item) for key, item in value.items()}
    return _scalar(value)


def _scalar(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # "nan", "inf": JSON has no such numbers
    if isinstance(value, Date | DateTime | Time):
        return value.iso_format()
    if isinstance(value, Duration):
        return value.iso_format()
    if isinstance(value, Point):
        return {"srid": value.srid, "coordinates": list(value)}
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)
