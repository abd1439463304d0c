"""A view's properties read lazily (`convert.PublicProps`) are exactly `storage.public`'s: a
node's without its bookkeeping, an edge's with it (`convert.edge_view`)."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from provgraph.query.read.convert import PublicProps, edge_view, stored_map
from provgraph.schemas import storage

STORED = {
    "name": "web",
    "id": "dataset:p/web",
    "project": "p",
    "first_seen_at": "2026-01-01T00:00:00.000000Z",
    "_v_name": 4,
    "version": "v2",
    "_v": 9,
    "checksum": "sha256:aa",
}
PUBLIC = storage.public(STORED, without=storage.BOOKKEEPING)


def test_read_whole_it_is_storage_public_in_key_order() -> None:
    props = PublicProps(dict(STORED))
    assert list(props) == list(PUBLIC) == ["checksum", "name", "version"]
    assert dict(props) == PUBLIC and props == PUBLIC and len(props) == 3
    assert list(props.items()) == list(PUBLIC.items())


@pytest.mark.parametrize("key", ["id", "project", "first_seen_at", "_v_name", "_v", "absent"])
def test_bookkeeping_and_version_stamps_are_not_there(key: str) -> None:
    props = PublicProps(dict(STORED))
    assert key not in props
    assert props.get(key) is None
    with pytest.raises(KeyError):
        props[key]


def test_one_field_read_without_filtering_the_rest() -> None:
    props = PublicProps(dict(STORED))
    assert props["name"] == "web" and props.get("version") == "v2" and "checksum" in props


def test_an_edge_keeps_its_bookkeeping_and_loses_its_stamps() -> None:
    edge = edge_view({"src": "a", "dst": "b", "type": "USED", "props": dict(STORED)})
    assert dict(edge.props) == storage.public(STORED)
    assert list(edge.props) == ["checksum", "first_seen_at", "id", "name", "project", "version"]
    assert edge.props["first_seen_at"] == STORED["first_seen_at"] and "_v" not in edge.props
    with pytest.raises(KeyError):
        edge.props["_v_name"]
    assert dict(edge_view({"src": "a", "dst": "b", "type": "USED", "props": None}).props) == {}


class _Entity:
    """What the driver's Node and Relationship offer: `items()` of their property dict."""

    def __init__(self, props: dict[str, object]) -> None:
        self._props = props

    def items(self) -> object:
        return self._props.items()


def test_stored_map_reads_the_entitys_own_map_read_only_without_a_copy() -> None:
    own = dict(STORED)
    found = stored_map(_Entity(own))
    assert isinstance(found, MappingProxyType) and found == own
    own["late"] = 1  # the same map, not a copy of it
    assert found["late"] == 1
    with pytest.raises(TypeError):
        found["name"] = "x"  # type: ignore[index]
