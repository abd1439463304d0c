"""A node view's properties read lazily (`convert.PublicProps`) are exactly `storage.public`'s."""

from __future__ import annotations

import pytest

from provgraph.query.read.convert import PublicProps
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
