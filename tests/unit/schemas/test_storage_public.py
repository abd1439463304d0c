"""What readers see of stored properties: no version stamps, and always in key order.

Neo4j hands a node's properties back in the order of its property-key tokens, which follows the
order the keys were first written to that database; answers must not depend on it.
"""

from __future__ import annotations

import itertools

from provgraph.query.http.values import public_properties
from provgraph.schemas import storage

STORED = {"name": "a", "_v_name": 3, "version": "v1", "_v": 7, "checksum": "x", "id": "d:1"}


def test_every_order_of_the_stored_keys_reads_back_the_same() -> None:
    seen = set()
    for order in itertools.permutations(STORED):
        props = {key: STORED[key] for key in order}
        public = storage.public(props)
        seen.add(tuple(public.items()))
        assert list(public) == ["checksum", "id", "name", "version"]
        assert list(public_properties(props)) == ["checksum", "id", "name", "version"]
    assert len(seen) == 1


def test_named_keys_are_left_out_too() -> None:
    assert list(storage.public(STORED, without={"id"})) == ["checksum", "name", "version"]
