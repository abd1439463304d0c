"""The ReadModel contract: one graph, one set of expected answers, every adapter held to them.

`ReadModelContract` is run against each adapter of the port: the in-memory `FakeReader`
(tests/unit/query/test_query_read_model_fake.py) and `GraphReader` over the real Neo4j
(tests/integration/query/test_query_read_model_neo4j.py). Each loads the same
`ContractGraph`, two projects with edges between them, and must answer every question the same
way, above all what the caller's scope hides: a node of an unreadable project is answered like
a missing one, and no traversal passes through it.

Project names are parameters, so that the Neo4j run keeps its graph apart from every other
test's: expected orders are computed (by id, by first-seen time), never written out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import (
    Direction,
    EdgeView,
    GraphPath,
    HistoryEntry,
    ImpactItem,
    NodeView,
    NodeWhere,
    Scope,
)
from provgraph.query.read.ports import ReadModel
from provgraph.schemas.storage import FIRST_SEEN_AT, param_key

T1 = "2026-01-05T09:00:00.000000Z"
T2 = "2026-01-05T10:00:00.000000Z"
T3 = "2026-01-06T09:00:00.000000Z"
BETWEEN = "2026-01-05T12:00:00.000000Z"  # after T1 and T2, before T3
UP, DOWN, BOTH = Direction.UPSTREAM, Direction.DOWNSTREAM, Direction.BOTH
EVERYTHING = Scope.everything()
PRODUCER = "https://provgraph.dev/tests"


# key: (id, type, first seen, properties); `{a}` and `{b}` stand for the two project names, and
# a node belongs to the project its id names.
_NODES: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "web": ("dataset:{a}/web", "Dataset", T1, {"name": "web"}),
    "web1": ("dataset:{a}/web@v1", "DatasetVersion", T1, {"storage_uri": "s3://{a}/web/v1/"}),
    "web2": ("dataset:{a}/web@v2", "DatasetVersion", T3, {"storage_uri": "s3://{a}/web/v2"}),
    "gone": ("dataset:{a}/gone@v1", "DatasetVersion", T1, {"name": "gone-web"}),
    "e1": ("experiment:{a}/e1", "Experiment", T1, {"number": 1, "key": "e1"}),
    "r1": (
        "run:{a}-r1",
        "Run",
        T2,
        {"name": "train-1", "status": "completed", param_key("lr"): 0.1},
    ),
    "r2": ("run:{a}-r2", "Run", T3, {"name": "train-2", "status": "failed", param_key("lr"): 0.2}),
    "ckpt": ("checkpoint:{a}-r1/100", "Checkpoint", T2, {"step": 100, "uri": "s3://{a}/ck/100"}),
    "chat": ("model:{a}/chat@1", "ModelVersion", T2, {"name": "chat", "status": "approved"}),
    "old": ("model:{a}/old@1", "ModelVersion", T2, {"name": "old", "status": "retired"}),
    "api": ("deployment:{a}/api", "Deployment", T3, {"name": "api", "status": "active"}),
    "shadow": ("deployment:{a}/shadow", "Deployment", T2, {"name": "shadow", "status": "active"}),
    "secret": ("dataset:{b}/secret@v1", "DatasetVersion", T1, {"name": "web-secret"}),
    "r9": (
        "run:{b}-r9",
        "Run",
        T2,
        {"name": "spy-run", "status": "completed", param_key("lr"): 0.1},
    ),
    "spy": ("model:{b}/spy@1", "ModelVersion", T2, {"name": "spy", "status": "candidate"}),
}
_MORE: dict[str, dict[str, Any]] = {
    "web1": {"name": "web", "version": "v1", "checksum": "sha256:shared"},
    "web2": {"name": "web", "version": "v2"},
    "gone": {"version": "v1"},
    "ckpt": {"checksum": "sha256:ck"},
    "chat": {"version": "1"},
    "old": {"version": "1"},
    "secret": {"version": "v1", "checksum": "sha256:shared"},
    "spy": {"version": "1"},
}
_DELETED = {"gone": T3}
# name: (src, type, dst, first seen, properties)
_EDGES: dict[str, tuple[str, str, str, str, dict[str, Any]]] = {
    "web1-of": ("web1", "VERSION_OF", "web", T1, {}),
    "web2-of": ("web2", "VERSION_OF", "web", T3, {}),
    "derived": ("web2", "DERIVED_FROM", "web1", T3, {"transform": "dedup"}),
    "r1-web1": ("r1", "USED", "web1", T2, {"role": "train"}),
    "r1-gone": ("r1", "USED", "gone", T2, {"role": "eval"}),
    "r2-web2": ("r2", "USED", "web2", T3, {"role": "train"}),
    "r1-e1": ("r1", "PART_OF", "e1", T2, {}),
    "r2-e1": ("r2", "PART_OF", "e1", T3, {}),
    "ckpt-r1": ("ckpt", "GENERATED_BY", "r1", T2, {}),
    "r2-ckpt": ("r2", "RESUMED_FROM", "ckpt", T3, {}),
    "chat-r1": ("chat", "GENERATED_BY", "r1", T2, {}),
    "chat-ckpt": ("chat", "EXPORTED_FROM", "ckpt", T2, {}),
    "old-r1": ("old", "GENERATED_BY", "r1", T2, {}),
    "api-chat": ("api", "SERVES", "chat", T3, {"traffic_share": 1.0}),
    "r9-web1": ("r9", "USED", "web1", T2, {"role": "train"}),
    "r9-secret": ("r9", "USED", "secret", T2, {"role": "train"}),
    "spy-r9": ("spy", "GENERATED_BY", "r9", T2, {}),
    "shadow-spy": ("shadow", "SERVES", "spy", T2, {"traffic_share": 0.5}),
}
# node: (event, type, occurred at, the event's project), newest last. Events of `b` touch
# nodes of `a` (b's run read a's data, started from a's run): a reader of `a` alone must not
# see them.
_EVENTS = {
    "r1": [
        ("e1", "run.started", T2, "a"),
        ("e2", "run.metrics.logged", T2, "a"),
        ("e3", "run.completed", T3, "a"),
        ("x1", "run.started", T3, "b"),
    ],
    "r9": [("e9", "run.started", T2, "b")],
    "web1": [
        ("e0", "dataset.version.registered", T1, "a"),
        ("x9", "run.started", T2, "b"),
        ("x8", "run.completed", T3, "b"),
    ],
}


@dataclass
class ContractGraph:
    """Project `a` (datasets, runs, a checkpoint, models, deployments) and project `b` (a run
    that read a's data, the model it made), with edges across; a's deployment `shadow` is
    reachable from a's data only through `b`."""

    a: str
    b: str
    nodes: dict[str, NodeView] = field(default_factory=dict)
    edges: dict[str, EdgeView] = field(default_factory=dict)
    history: dict[str, list[HistoryEntry]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for key, (template, type, seen, props) in _NODES.items():
            project = self.a if "{a}" in template else self.b
            values = {k: self._named(v) for k, v in {**props, **_MORE.get(key, {})}.items()}
            node_id = self._named(template)
            self.nodes[key] = NodeView(
                node_id, type, project, seen, seen, _DELETED.get(key), False, values
            )
        for name, (src, rel, dst, seen, props) in _EDGES.items():
            self.edges[name] = EdgeView(
                self.id(src), self.id(dst), rel, {**props, FIRST_SEEN_AT: seen}
            )
        for key, events in _EVENTS.items():
            node = self.nodes[key]
            projects = {owner: self.a if owner == "a" else self.b for *_, owner in events}
            self.history[node.id] = [
                HistoryEntry(
                    f"{projects[owner]}-{e}",
                    kind,
                    at,
                    PRODUCER,
                    "user:test",
                    node.id,
                    projects[owner],
                )
                for e, kind, at, owner in events
            ]

    def _named(self, value: Any) -> Any:
        return value.format(a=self.a, b=self.b) if isinstance(value, str) else value

    def id(self, key: str) -> str:
        return self.nodes[key].id

    def events_of(self, key: str, projects: set[str]) -> list[HistoryEntry]:
        """The events of `projects` that touched node `key`, oldest first."""
        events = [e for e in self.history.get(self.id(key), []) if e.project in projects]
        return sorted(events, key=lambda e: (e.occurred_at, e.event_id))

    def views(self, *keys: str) -> list[NodeView]:
        return [self.nodes[k] for k in keys]

    def by_id(self, *keys: str) -> list[NodeView]:
        """The nodes `keys`, in the order of their ids."""
        return sorted(self.views(*keys), key=lambda n: n.id)

    def by_seen(self, *keys: str) -> tuple[NodeView, ...]:
        """The nodes `keys`, in list order: first seen, then id."""
        return tuple(sorted(self.views(*keys), key=lambda n: (n.first_seen_at, n.id)))

    def edges_of(self, *names: str) -> tuple[EdgeView, ...]:
        """The edges `names`, in the order of a lineage answer: (src, type, dst)."""
        return tuple(sorted((self.edges[n] for n in names), key=lambda e: (e.src, e.type, e.dst)))

    def step(self, edge: str, node: str) -> tuple[EdgeView, NodeView]:
        return self.edges[edge], self.nodes[node]

    def path(self, nodes: Sequence[str], edges: Sequence[str]) -> GraphPath:
        return GraphPath(tuple(self.views(*nodes)), tuple(self.edges[e] for e in edges))


class ReadModelContract:
    """What every ReadModel adapter answers on the contract graph. Subclasses provide
    `graph` (loaded into the adapter under test) and `reader` (the adapter)."""

    @pytest.fixture()
    def graph(self) -> ContractGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reader(self, graph: ContractGraph) -> ReadModel:
        raise NotImplementedError("each adapter's test class provides its reader")

    @staticmethod
    def scopes(graph: ContractGraph) -> tuple[Scope, Scope]:
        """Project a alone; projects a and b (as good as everything, on this graph alone)."""
        return Scope(frozenset({graph.a})), Scope(frozenset({graph.a, graph.b}))

    # ---- lookups -------------------------------------------------------------------------------

    def test_nodes_of_other_projects_are_answered_as_missing(
        self, reader: ReadModel, graph: ContractGraph
    ) -> None:
        only_a, _ = self.scopes(graph)
        web1, secret = graph.nodes["web1"], graph.nodes["secret"]
        assert reader.node(web1.id, only_a) == web1
        assert reader.node(secret.id, only_a) is None
        assert reader.node(secret.id, EVERYTHING) == secret
        assert reader.node(web1.id, Scope(frozenset())) is None
        assert reader.nodes([secret.id, web1.id, "dataset:nowhere/x@1"], only_a) == [
            None,
            web1,
            None,
        ]

    def test_as_of_hides_what_came_later_and_deleted_nodes_stay_found(
        self, reader: ReadModel, graph: ContractGraph
    ) -> None:
        only_a, _ = self.scopes(graph)
        assert reader.node(graph.id("web2"), only_a, BETWEEN) is None
        assert reader.node(graph.id("web1"), only_a, BETWEEN) == graph.nodes["web1"]
        gone = reader.node(graph.id("gone"), only_a)
        assert gone == graph.nodes["gone"]
        assert gone is not None and gone.deleted_at == T3

    def test_neighbours_stop_at_the_scope_and_the_cut(
        self, reader: ReadModel, graph: ContractGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        web1, secret = graph.id("web1"), graph.id("secret")
        assert reader.neighbours([web1, secret], "USED", DOWN, only_a) == [
            [graph.step("r1-web1", "r1")],
            [],
        ]
        users = sorted(
            [graph.step("r1-web1", "r1"), graph.step("r9-web1", "r9")], key=lambda s: s[1].id
        )
        assert reader.neighbours([web1, secret], "USED", DOWN, both) == [
            users,
            [graph.step("r9-secret", "r9")],
        ]
        inputs = sorted(
            [graph.step("r1-web1", "web1"), graph.step("r1-gone", "gone")], key=lambda s: s[1].id
        )
        assert reader.neighbours([graph.id("r1")], "USED", UP, only_a) == [inputs]
        assert reader.neighbours([web1], "DERIVED_FROM", DOWN, only_a, BETWEEN) == [[]]
        assert reader.neighbours([web1], "DERIVED_FROM", DOWN, only_a) == [
            [graph.step("derived", "web2")]
        ]
        made = [
            graph.step("ckpt-r1", "ckpt"),
            graph.step("chat-r1", "chat"),
            graph.step("old-r1", "old"),
        ]
        assert reader.neighbours([graph.id("r1")], "GENERATED_BY", BOTH, only_a) == [
            sorted(made, key=lambda s: s[1].id)
        ]
        with pytest.raises(InvalidArgumentError):
            reader.neighbours([web1], "TOUCHED", UP, only_a)

    def test_find_by_natural_key_within_the_scope(
        self, reader: ReadModel, graph: ContractGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        assert reader.find("ModelVersion", only_a, name="chat", version="1") == graph.nodes["chat"]
        assert reader.find("DatasetVersion", only_a, name="web-secret", version="v1") is None
        assert (
            reader.find("DatasetVersion", both, name="web-secret", version="v1")
            == graph.nodes["secret"]
        )
        assert reader.find("Experiment", only_a, number=1) == graph.nodes["e1"]
        assert reader.find("Experiment", both, project=graph.b, number=1) is None
        for bad in ({"type": "Run"}, {"type": "Nope", "name": "x"}):
            with pytest.raises(InvalidArgumentError):
                reader.find(bad.pop("type"), only_a, **bad)

    def test_lists_filter_order_and_page(self, reader: ReadModel, graph: ContractGraph) -> None:
        only_a, both = self.scopes(graph)
        assert reader.list_nodes("Run", only_a).items == graph.by_seen("r1", "r2")
        assert reader.list_nodes("Run", both).items == graph.by_seen("r1", "r2", "r9")

        def runs(scope: Scope, **where: Any) -> tuple[NodeView, ...]:
            return reader.list_nodes("Run", scope, NodeWhere(**where)).items

        assert runs(both, status="failed") == graph.by_seen("r2")
        assert runs(both, param=("lr", "0.1")) == graph.by_seen("r1", "r9")
        assert runs(only_a, param=("lr", "1e-1")) == graph.by_seen("r1")
        assert runs(both, since=T3) == graph.by_seen("r2")
        assert runs(only_a, until=T3) == graph.by_seen("r1")
        assert runs(both, project=graph.b) == graph.by_seen("r9")
        assert runs(both, experiment=graph.id("e1")) == graph.by_seen("r1", "r2")
        assert reader.list_nodes("DatasetVersion", only_a).items == graph.by_seen("web1", "web2")
        uses_web1 = NodeWhere(uses=graph.id("web1"))
        assert reader.list_nodes("Run", both, uses_web1).items == graph.by_seen("r1", "r9")
        assert reader.list_nodes("Run", only_a, uses_web1).items == graph.by_seen("r1")
        assert reader.list_nodes("ModelVersion", both, uses_web1).items == graph.by_seen(
            "chat", "old", "spy"
        )
        uses_secret = NodeWhere(uses=graph.id("secret"))
        assert reader.list_nodes("Run", both, uses_secret).items == graph.by_seen("r9")
        assert reader.list_nodes("Run", only_a, uses_secret).items == ()
        both_filters = NodeWhere(uses=graph.id("web2"), status="failed", param=("lr", "0.2"))
        assert reader.list_nodes("Run", both, both_filters).items == graph.by_seen("r2")
        pages, after = [], None
        while True:
            page = reader.list_nodes("Run", both, first=1, after=after)
            pages.append(page.items)
            if (after := page.next_cursor) is None:
                break
        assert tuple(n for items in pages for n in items) == graph.by_seen("r1", "r2", "r9")
        assert len(pages) == 3

    def test_search_is_case_blind_live_only_and_scoped(
        self, reader: ReadModel, graph: ContractGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        assert reader.search("WEB", only_a) == graph.by_id("web", "web1", "web2")
        assert reader.search("WEB", both) == graph.by_id("web", "web1", "web2", "secret")
        assert reader.search("web", both, types=["Dataset"]) == graph.by_id("web")
        assert reader.search("TRAIN", both, where=NodeWhere(status="failed")) == graph.by_id("r2")
        uses_web1 = NodeWhere(uses=graph.id("web1"))
        assert reader.search("", both, types=["Run"], where=uses_web1) == graph.by_id("r1", "r9")
        made = graph.by_id("r1", "ckpt", "chat", "old")
        assert reader.search("", only_a, where=uses_web1) == made
        assert reader.search("web", both, where=NodeWhere(project=graph.b)) == graph.by_id("secret")
        since = NodeWhere(experiment=graph.id("e1"), since=T3, param=("lr", "2e-1"))
        assert reader.search("train", both, where=since) == graph.by_id("r2")
        assert (
            reader.search("web", both, first=2) == graph.by_id("web", "web1", "web2", "secret")[:2]
        )

    def test_artifacts_by_checksum_or_uri(self, reader: ReadModel, graph: ContractGraph) -> None:
        only_a, both = self.scopes(graph)
        assert reader.artifact(only_a, checksum="sha256:shared") == graph.views("web1")
        assert reader.artifact(both, checksum="sha256:shared") == graph.by_id("web1", "secret")
        assert reader.artifact(only_a, uri=f"s3://{graph.a}/web/v1") == graph.views("web1")
        assert reader.artifact(only_a, uri=f"s3://{graph.a}/ck/100") == graph.views("ckpt")
        with pytest.raises(InvalidArgumentError):
            reader.artifact(only_a)

    def test_history_newest_first_paged_and_scoped(
        self, reader: ReadModel, graph: ContractGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        r1, r9 = graph.id("r1"), graph.id("r9")
        events = graph.events_of("r1", {graph.a})
        first = reader.history(r1, only_a, first=2)
        assert first is not None and first.next_cursor is not None
        assert first.items == (events[2], events[1])
        rest = reader.history(r1, only_a, first=2, after=first.next_cursor)
        assert rest is not None and (rest.items, rest.next_cursor) == ((events[0],), None)
        assert reader.history(r9, only_a) is None
        r9_page = reader.history(r9, both)
        assert r9_page is not None and r9_page.items == tuple(graph.history[r9])
        assert reader.history("run:nowhere", both) is None

    def test_history_leaves_out_events_of_unreadable_projects(
        self, reader: ReadModel, graph: ContractGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        for key in ("r1", "web1"):
            node = graph.id(key)
            mine = reader.history(node, only_a)
            assert mine is not None and mine.next_cursor is None
            assert mine.items == tuple(reversed(graph.events_of(key, {graph.a})))
            assert {e.project for e in mine.items} == {graph.a}
            whole = reader.history(node, both)
            assert whole is not None
            assert whole.items == tuple(reversed(graph.events_of(key, {graph.a, graph.b})))
            assert {e.project for e in whole.items} == {graph.a, graph.b}
        # Page by page, the hidden events never show up nor leave a gap in the cursor.
        web1, seen, after = graph.id("web1"), [], None
        while True:
            page = reader.history(web1, only_a, first=1, after=after)
            assert page is not None
            seen += page.items
            if page.next_cursor is None:
                break
            after = page.next_cursor
        assert seen == list(reversed(graph.events_of("web1", {graph.a})))

    # ---- traversals ----------------------------------------------------------------------------

    @staticmethod
    def _expect(
        graph: ContractGraph, reached: dict[str, int], edges: Sequence[str]
    ) -> tuple[list[tuple[int, NodeView]], tuple[EdgeView, ...]]:
        """The nodes of a lineage answer with their depths, in its order, and its edges."""
        order = sorted(reached.items(), key=lambda kv: (kv[1], graph.id(kv[0])))
        return [(depth, graph.nodes[key]) for key, depth in order], graph.edges_of(*edges)

    @staticmethod
    def _lineage(
        reader: ReadModel, graph: ContractGraph, root: str, scope: Scope, **kw: Any
    ) -> tuple[list[tuple[int, NodeView]], tuple[EdgeView, ...], bool]:
        found = reader.lineage(graph.id(root), scope, **kw)
        assert found is not None
        assert found.root == graph.nodes[root]
        reached = [(found.depths[n.id], n) for n in found.nodes]
        assert dict(found.depths) == {found.root.id: 0, **{n.id: d for d, n in reached}}
        return reached, found.edges, found.truncated

    def test_lineage_never_walks_through_an_unreadable_node(
        self, reader: ReadModel, graph: ContractGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        mine = {"r1": 1, "web2": 1, "ckpt": 2, "chat": 2, "old": 2, "r2": 2, "api": 3}
        mine_edges = [
            "derived",
            "r1-web1",
            "r2-web2",
            "ckpt-r1",
            "r2-ckpt",
            "chat-r1",
            "chat-ckpt",
            "old-r1",
            "api-chat",
        ]
        want = self._expect(graph, mine, mine_edges)
        assert self._lineage(reader, graph, "web1", only_a, direction=DOWN) == (*want, False)
        theirs = {**mine, "r9": 1, "spy": 2, "shadow": 3}
        want = self._expect(graph, theirs, [*mine_edges, "r9-web1", "spy-r9", "shadow-spy"])
        assert self._lineage(reader, graph, "web1", both, direction=DOWN) == (*want, False)
        assert reader.lineage(graph.id("secret"), only_a) is None
        assert reader.lineage("run:nowhere", both) is None

    def test_lineage_types_limit_depth_and_as_of(
        self, reader: ReadModel, graph: ContractGraph
    ) -> None:
        only_a, _ = self.scopes(graph)
        models = self._expect(graph, {"chat": 2, "old": 2}, [])
        assert self._lineage(
            reader, graph, "web1", only_a, direction=DOWN, types=["ModelVersion"]
        ) == (*models, False)
        first_two = self._expect(graph, {"r1": 1, "web2": 1}, ["derived", "r1-web1"])
        assert self._lineage(reader, graph, "web1", only_a, direction=DOWN, limit=2) == (
            *first_two,
            True,
        )
        assert self._lineage(reader, graph, "web1", only_a, direction=DOWN, depth=1) == (
            *first_two,
            False,
        )
        then = self._expect(
            graph,
            {"r1": 1, "ckpt": 2, "chat": 2, "old": 2},
            ["r1-web1", "ckpt-r1", "chat-r1", "chat-ckpt", "old-r1"],
        )
        assert self._lineage(reader, graph, "web1", only_a, direction=DOWN, as_of=BETWEEN) == (
            *then,
            False,
        )
        for bad in ({"depth": 0}, {"depth": 21}, {"limit": 0}):
            with pytest.raises(InvalidArgumentError):
                reader.lineage(graph.id("web1"), only_a, **bad)

    def test_both_directions_is_the_union_of_each_way(
        self, reader: ReadModel, graph: ContractGraph
    ) -> None:
        only_a, _ = self.scopes(graph)
        union = self._expect(
            graph, {"web": 1, "web1": 1, "r2": 1}, ["web1-of", "web2-of", "derived", "r2-web2"]
        )
        assert self._lineage(reader, graph, "web2", only_a, direction=BOTH, depth=2) == (
            *union,
            False,
        )

    def test_impact_reaches_live_models_and_deployments_in_scope(
        self, reader: ReadModel, graph: ContractGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        chat = ImpactItem(
            graph.nodes["chat"], graph.path(["web1", "r1", "chat"], ["r1-web1", "chat-r1"])
        )
        api = ImpactItem(
            graph.nodes["api"],
            graph.path(["web1", "r1", "chat", "api"], ["r1-web1", "chat-r1", "api-chat"]),
        )
        spy = ImpactItem(
            graph.nodes["spy"], graph.path(["web1", "r9", "spy"], ["r9-web1", "spy-r9"])
        )
        shadow = ImpactItem(
            graph.nodes["shadow"],
            graph.path(["web1", "r9", "spy", "shadow"], ["r9-web1", "spy-r9", "shadow-spy"]),
        )
        nearest_first = sorted(
            [chat, api, spy, shadow], key=lambda i: (len(i.path.nodes), i.node.id)
        )
        assert reader.impact(graph.id("web1"), only_a) == [chat, api]
        assert reader.impact(graph.id("web1"), both) == nearest_first
        assert reader.impact(graph.id("web1"), only_a, BETWEEN) == [chat]
        assert reader.impact(graph.id("secret"), only_a) is None

    def test_paths_never_step_onto_an_unreadable_node(
        self, reader: ReadModel, graph: ContractGraph
    ) -> None:
        only_a, both = self.scopes(graph)
        chat, shadow, web1 = graph.id("chat"), graph.id("shadow"), graph.id("web1")
        assert reader.paths(chat, web1, only_a) == [
            graph.path(["chat", "r1", "web1"], ["chat-r1", "r1-web1"])
        ]
        assert reader.paths(shadow, web1, only_a) == []
        through = graph.path(["shadow", "spy", "r9", "web1"], ["shadow-spy", "spy-r9", "r9-web1"])
        assert reader.paths(shadow, web1, both) == [through]
        assert reader.paths(chat, graph.id("secret"), only_a) is None
        assert reader.paths(chat, chat, only_a) == [graph.path(["chat"], [])]
