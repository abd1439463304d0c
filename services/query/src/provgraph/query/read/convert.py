"""Pure helpers of the Neo4j reader: record conversion, cursors and argument checks.

What a stored property means is the contract's (`provgraph.schemas.storage`): bookkeeping is
lifted into a view's own fields and internal version stamps never reach a caller.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import EdgeView, GraphPath, NodeView, NodeWhere, Scope, built
from provgraph.schemas import storage
from provgraph.schemas.graph import Label, Rel

_LABELS = {label.value: label for label in Label if label is not Label.ENTITY}
_RELS = {rel.value: rel for rel in Rel}


def node_view(node: Any) -> NodeView:
    """A driver Node (labels + properties) as a NodeView."""
    # Called for every node of an answer (up to 10,000 in a lineage): the driver's own
    # property map read in place (read-only, not copied), and the label sets, few, mapped once.
    props = stored_map(node)
    values = {
        "id": str(props[storage.ID]),
        "type": _kind(node.labels),
        "project": props.get(storage.PROJECT),
        "first_seen_at": props.get(storage.FIRST_SEEN_AT),
        "last_event_at": props.get(storage.LAST_EVENT_AT),
        "deleted_at": props.get(storage.DELETED_AT),
        "placeholder": bool(props.get(storage.PLACEHOLDER, False)),
        "props": PublicProps(props),
    }
    return built(NodeView, values)


def stored_map(entity: Any) -> Mapping[str, Any]:
    """A driver Node's or Relationship's properties as a read-only map, without a copy."""
    items = entity.items()
    mapping = getattr(items, "mapping", None)  # a dict's items view names its dict, read-only
    if type(mapping) is MappingProxyType:  # the common case, without the ABC check
        return mapping
    return mapping if isinstance(mapping, Mapping) else dict(items)


class PublicProps(Mapping[str, Any]):
    """Stored properties as `storage.public` gives them (no version stamps, nor the keys in
    `without`, in key order), filtered only when read whole: most answers read a field or two
    of each node and edge they hold, or none (a lineage of ids), and a lineage holds up to
    10,000 nodes. A node's view leaves out its bookkeeping (the view's own fields); an edge's
    keeps it."""

    __slots__ = ("_stored", "_whole", "_without")

    def __init__(
        self, stored: Mapping[str, Any], without: frozenset[str] = storage.BOOKKEEPING
    ) -> None:
        self._stored = stored
        self._without = without
        self._whole: dict[str, Any] | None = None

    def __getitem__(self, key: str) -> Any:
        if self._hidden(key):
            raise KeyError(key)
        return self._stored[key]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and not self._hidden(key) and key in self._stored

    def __iter__(self) -> Iterator[str]:
        return iter(self._public())

    def __len__(self) -> int:
        return len(self._public())

    def __repr__(self) -> str:
        return repr(self._public())

    def _public(self) -> dict[str, Any]:
        if self._whole is None:
            self._whole = storage.public(self._stored, without=self._without)
        return self._whole

    def _hidden(self, key: str) -> bool:
        """A key left out (a view's own field) or a version stamp: what `storage.public`
        leaves out."""
        return key in self._without or storage.is_internal(key)


_EDGE_SHOWS_ALL: frozenset[str] = frozenset()  # an edge has no bookkeeping fields of its own


@functools.lru_cache(maxsize=256)
def _kind(labels: frozenset[str]) -> str:
    """The node's type: the first of its labels (by name) that is a lineage type."""
    return next((label for label in sorted(labels) if label in _LABELS), Label.ENTITY.value)


def edge_view(row: Mapping[str, Any]) -> EdgeView:
    """An edge map {src, dst, type, props} as returned by the read queries."""
    values = {
        "src": str(row["src"]),
        "dst": str(row["dst"]),
        "type": str(row["type"]),
        "props": PublicProps(row.get("props") or {}, _EDGE_SHOWS_ALL),
    }
    return built(EdgeView, values)


def graph_path(row: Mapping[str, Any]) -> GraphPath:
    """A {nodes, edges} map (nodes in traversal order) as a GraphPath."""
    return GraphPath(
        nodes=tuple(node_view(n) for n in row["nodes"]),
        edges=tuple(edge_view(e) for e in row["edges"]),
    )


def scope_params(scope: Scope, as_of: str | None = None) -> dict[str, Any]:
    """The parameters of `cypher.visible`: every query binds exactly these."""
    projects = scope.projects
    return {
        "all": projects is None,
        "projects": sorted(projects) if projects is not None else [],
        "as_of": as_of,
    }


def where_params(where: NodeWhere) -> dict[str, Any]:
    """The parameters of `fragments.passes`: a run parameter as its stored property, its
    value as text and, when it reads as one, as a number."""
    name, value = where.param if where.param else (None, None)
    key = storage.param_key(name) if name is not None else None
    return {
        "project": where.project,
        "experiment": where.experiment,
        "status": where.status,
        "since": where.since,
        "until": where.until,
        "param_key": key,
        "param_value": value,
        "param_number": as_number(value) if value is not None else None,
        "uses": where.uses,
    }


def encode_cursor(timestamp: str, key: str) -> str:
    """An opaque cursor for the position (timestamp, key)."""
    raw = json.dumps([timestamp, key], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> tuple[str | None, str | None]:
    """(timestamp, key) of a cursor, (None, None) for the first page."""
    if cursor is None:
        return None, None
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        value = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
        raise InvalidArgumentError("malformed cursor", cursor=cursor) from exc
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)):
        raise InvalidArgumentError("malformed cursor", cursor=cursor)
    return value[0], value[1]


def label_of(type_name: str) -> Label:
    """The node label named `type_name`, or InvalidArgumentError."""
    label = _LABELS.get(type_name)
    if label is None:
        raise InvalidArgumentError(f"unknown node type {type_name!r}", type=type_name)
    return label


def rel_of(rel_name: str) -> Rel:
    """The lineage relationship type named `rel_name`, or InvalidArgumentError."""
    rel = _RELS.get(rel_name)
    if rel is None:
        raise InvalidArgumentError(f"unknown relationship type {rel_name!r}", rel=rel_name)
    return rel


def bounded(name: str, value: int, maximum: int, minimum: int = 1) -> int:
    """`value` when minimum <= value <= maximum, else InvalidArgumentError."""
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise InvalidArgumentError(f"{name} must be between {minimum} and {maximum}", {name: value})
    return value


def uri_variants(uri: str) -> list[str]:
    """The uri with and without its trailing '/', as stores write both."""
    stem = uri.rstrip("/")
    return [uri, stem, stem + "/"] if stem else [uri]


def as_number(text: str) -> float | None:
    """A param value that reads as a number also matches numeric storage (3e-4 vs 0.0003)."""
    try:
        return float(text)
    except ValueError:
        return None
