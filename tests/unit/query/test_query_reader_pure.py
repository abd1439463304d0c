"""The reader's pure parts: cursors, conversion, argument checks and the query builders."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read import graph_cypher as cypher
from provgraph.query.read.convert import (
    bounded,
    decode_cursor,
    edge_view,
    encode_cursor,
    label_of,
    node_view,
    rel_of,
    scope_params,
    uri_variants,
)
from provgraph.query.read.feedback_reads import feedback_record
from provgraph.query.read.model import (
    Direction,
    EdgeView,
    NodeView,
    Scope,
    built,
)
from provgraph.query.read.reader import _history_entry
from provgraph.query.read.recipe_reads import DERIVATION, RECIPE_ARTIFACT, RECIPE_RUN
from provgraph.schemas import issued_name
from provgraph.schemas.graph import Label, Rel


class _Node(dict[str, Any]):
    """Stands in for a driver Node: a mapping with labels."""

    def __init__(self, labels: set[str], props: dict[str, Any]) -> None:
        super().__init__(props)
        self.labels = frozenset(labels)


def test_cursor_round_trip_and_opaque() -> None:
    cursor = encode_cursor("2026-01-05T09:00:00.000000Z", "run:a/b")
    assert "run" not in cursor and "=" not in cursor
    assert decode_cursor(cursor) == ("2026-01-05T09:00:00.000000Z", "run:a/b")
    assert decode_cursor(None) == (None, None)


@pytest.mark.parametrize("bad", ["!!!", "e30", encode_cursor("a", "b")[:-3], "WzEsMl0"])
def test_malformed_cursors_are_invalid_arguments(bad: str) -> None:
    with pytest.raises(InvalidArgumentError):
        decode_cursor(bad)


def test_node_view_lifts_bookkeeping_and_hides_stamps() -> None:
    node = _Node(
        {"Entity", "Run"},
        {
            "id": "run:x",
            "project": "p",
            "first_seen_at": "t1",
            "last_event_at": "t2",
            "placeholder": False,
            "status": "completed",
            "_v_status": "t2|e",
            "_v": "x",
        },
    )
    view = node_view(node)
    assert (view.id, view.type, view.project, view.deleted_at) == ("run:x", "Run", "p", None)
    assert dict(view.props) == {"status": "completed"}


def test_edge_view_drops_version_stamp() -> None:
    edge = edge_view({"src": "a", "dst": "b", "type": "USED", "props": {"role": "t", "_v": "x"}})
    assert (edge.src, edge.dst, edge.type, dict(edge.props)) == ("a", "b", "USED", {"role": "t"})


def field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


def test_views_are_built_whole_equal_and_frozen_as_their_constructor_builds_them() -> None:
    node = _Node({"Entity", "Run"}, {"id": "run:x", "project": "p", "status": "completed"})
    view = node_view(node)
    assert set(vars(view)) == field_names(NodeView)  # every field, nothing else
    same = NodeView(**{name: getattr(view, name) for name in field_names(NodeView)})
    assert view == same and repr(view) == repr(same)
    edge = edge_view({"src": "a", "dst": "b", "type": "USED", "props": {"role": "t"}})
    assert set(vars(edge)) == field_names(EdgeView)
    assert edge == EdgeView(src="a", dst="b", type="USED", props=edge.props)
    for frozen in (view, edge):
        with pytest.raises(dataclasses.FrozenInstanceError):
            frozen.type = "Other"  # type: ignore[misc]
    assert built(Scope, {"projects": None}) == Scope.everything()


def test_scope_params() -> None:
    assert scope_params(Scope.everything()) == {"all": True, "projects": [], "as_of": None}
    assert scope_params(Scope(frozenset({"b", "a"})), "t") == {
        "all": False,
        "projects": ["a", "b"],
        "as_of": "t",
    }


def test_argument_checks() -> None:
    assert label_of("ModelVersion") is Label.MODEL_VERSION
    assert rel_of("USED") is Rel.USED
    assert bounded("depth", 20, 20) == 20
    for call in (
        lambda: label_of("Entity"),
        lambda: label_of("AppliedEvent"),
        lambda: rel_of("TOUCHED"),
        lambda: bounded("depth", 21, 20),
        lambda: bounded("depth", 0, 20),
        lambda: bounded("depth", True, 20),
    ):
        with pytest.raises(InvalidArgumentError):
            call()


def test_uri_variants() -> None:
    assert set(uri_variants("s3://a/b/")) == {"s3://a/b/", "s3://a/b"}
    assert set(uri_variants("s3://a/b")) == {"s3://a/b", "s3://a/b/"}


def test_traversal_builders_only_take_a_positive_int_depth() -> None:
    assert "{1,3}" in cypher.lineage(Direction.DOWNSTREAM, 3)
    # Upstream, a Dataset root first steps to its versions ({0,1}), then up to 3 steps ({0,3}).
    assert "{0,3}" in cypher.lineage(Direction.UPSTREAM, 3)
    for bad in (0, -1, "3) MATCH (x", 2.5):
        with pytest.raises(ValueError):
            cypher.lineage(Direction.UPSTREAM, bad)  # type: ignore[arg-type]


def _all_queries() -> list[str]:
    built = [
        cypher.NODES,
        cypher.SEARCH,
        cypher.HISTORY,
        cypher.ARTIFACT,
        cypher.neighbours(Rel.USED, ("-", "->")),
        cypher.find(Label.MODEL_VERSION),
        cypher.list_nodes(Label.RUN),
        cypher.impact(20),
        cypher.paths(20),
        RECIPE_ARTIFACT,
        RECIPE_RUN,
        DERIVATION,
    ]
    return built + [cypher.lineage(d, 5) for d in Direction]


def test_every_query_applies_the_scope_and_never_walks_bookkeeping() -> None:
    for query in _all_queries():
        assert "($all OR" in query and ".project IN $projects)" in query
    for query in [cypher.lineage(d, 5) for d in Direction] + [cypher.impact(5), DERIVATION]:
        assert "TOUCHED" not in query and "AppliedEvent" not in query


def test_a_stamped_principal_is_shown_as_issued() -> None:
    # Stored: the Principal's node id, as ingest stamps it; shown: the name the token has.
    assert issued_name("principal:user:ann") == "user:ann"
    assert issued_name("principal:service:trainer") == "service:trainer"
    assert issued_name("principal:group:ml-infra@corp") == "group:ml-infra@corp"
    assert issued_name(issued_name("principal:user:ann")) == "user:ann"  # shown stays shown
    # No stamp; a header written straight to Kafka that is no principal id: as it is.
    assert [issued_name(s) for s in (None, "", "ann@corp", "principal:nobody")] == [
        None, "", "ann@corp", "principal:nobody",
    ]  # fmt: skip
    assert issued_name("run:principal-1") == "run:principal-1"


def test_history_and_feedback_show_the_issued_name() -> None:
    row = {"event_id": "e1", "event_type": "run.started", "occurred_at": "t", "project": "p"}
    entry = _history_entry({**row, "actor": "ann", "principal": "principal:user:ann"})
    assert (entry.actor, entry.principal) == ("ann", "user:ann")
    assert _history_entry(row).principal is None
    item = {"event_id": "e2", "at": "t", "actor": "bot", "principal": "principal:service:bot"}
    assert feedback_record(item).principal == "service:bot"
