"""An in-memory ReadModel for the GraphQL unit tests (pure code: no database involved)."""

from __future__ import annotations

import asyncio
from collections import Counter, deque
from collections.abc import Sequence
from typing import Any

from provgraph.query.graphql.schema import make_context, make_schema
from provgraph.query.model import (
    Direction,
    EdgeView,
    GraphPath,
    HistoryEntry,
    ImpactItem,
    Lineage,
    NodeView,
    Page,
    Scope,
)
from provgraph.query.settings import QuerySettings

T0 = "2026-01-05T09:00:00.000000Z"


def view(node_id: str, type: str, seen: str = T0, **props: Any) -> NodeView:
    return NodeView(node_id, type, "p", seen, seen, None, False, props)


class FakeReader:
    """Nodes and edges in dicts; counts calls so batching can be asserted."""

    def __init__(self, nodes: Sequence[NodeView], edges: Sequence[EdgeView]) -> None:
        self.by_id = {n.id: n for n in nodes}
        self.edges = list(edges)
        self.calls: Counter[str] = Counter()
        self.neighbour_batches: list[tuple[str, tuple[str, ...]]] = []

    def _visible(self, node_id: str, as_of: str | None) -> NodeView | None:
        n = self.by_id.get(node_id)
        if n is None or (as_of is not None and (n.first_seen_at or "") > as_of):
            return None
        return n

    def node(self, node_id: str, scope: Scope, as_of: str | None = None) -> NodeView | None:
        self.calls["node"] += 1
        return self._visible(node_id, as_of)

    def nodes(self, ids: Sequence[str], scope: Scope, as_of: str | None = None) -> list[Any]:
        self.calls["nodes"] += 1
        return [self._visible(i, as_of) for i in ids]

    def _step(self, node_id: str, rel: str | None, direction: Direction) -> list[Any]:
        out = []
        for e in self.edges:
            if rel is not None and e.type != rel:
                continue
            if direction != Direction.DOWNSTREAM and e.src == node_id:
                out.append((e, self.by_id[e.dst]))
            if direction != Direction.UPSTREAM and e.dst == node_id:
                out.append((e, self.by_id[e.src]))
        return out

    def neighbours(
        self, ids: Sequence[str], rel: str, direction: Direction, scope: Scope, as_of: Any = None
    ) -> list[list[Any]]:
        self.calls["neighbours"] += 1
        self.neighbour_batches.append((rel, tuple(ids)))
        return [self._step(i, rel, direction) for i in ids]

    def find(self, type: str, scope: Scope, **key: Any) -> NodeView | None:
        self.calls["find"] += 1
        wanted = {k: v for k, v in key.items() if v is not None and k != "project"}
        for n in self.by_id.values():
            if n.type == type and all(n.props.get(k) == v for k, v in wanted.items()):
                return n
        return None

    def list_nodes(self, type: str, scope: Scope, *, first: int = 50, **kw: Any) -> Page:
        self.calls["list_nodes"] += 1
        found = [n for n in self.by_id.values() if n.type == type]
        if kw.get("status"):
            found = [n for n in found if n.props.get("status") == kw["status"]]
        start = int(kw.get("after") or 0)
        rest = found[start : start + first]
        more = start + first < len(found)
        return Page(tuple(rest), str(start + first) if more else None)

    def search(self, text: str, scope: Scope, *, types: Sequence[str] = (), first: int = 50) -> Any:
        hits = [n for n in self.by_id.values() if text in n.id and (not types or n.type in types)]
        return hits[:first]

    def lineage(
        self,
        node_id: str,
        scope: Scope,
        *,
        direction: Direction = Direction.UPSTREAM,
        depth: int = 5,
        types: Sequence[str] = (),
        as_of: Any = None,
        limit: int = 1000,
    ) -> Lineage | None:
        self.calls["lineage"] += 1
        self.last_lineage = {"depth": depth, "limit": limit, "direction": direction}
        root = self._visible(node_id, as_of)
        if root is None:
            return None
        depths, edges, queue = {node_id: 0}, [], deque([node_id])
        while queue:
            current = queue.popleft()
            if depths[current] == depth:
                continue
            for e, n in self._step(current, None, direction):
                if all(e is not seen for seen in edges):
                    edges.append(e)
                if n.id not in depths:
                    depths[n.id] = depths[current] + 1
                    queue.append(n.id)
        nodes = tuple(self.by_id[i] for i in depths if i != node_id)
        return Lineage(root, nodes, depths, tuple(edges), False)

    def impact(self, node_id: str, scope: Scope, as_of: Any = None) -> list[ImpactItem] | None:
        root = self._visible(node_id, as_of)
        if root is None:
            return None
        items = []
        for e, n in self._step(node_id, None, Direction.DOWNSTREAM):
            items.append(ImpactItem(n, GraphPath((root, n), (e,))))
        return items

    def paths(self, src: str, dst: str, scope: Scope, *, max_depth: int = 20) -> Any:
        if src not in self.by_id or dst not in self.by_id:
            return None
        for e, n in self._step(src, None, Direction.BOTH):
            if n.id == dst:
                return [GraphPath((self.by_id[src], n), (e,))]
        return []

    def history(self, node_id: str, scope: Scope, *, first: int = 50, after: Any = None) -> Any:
        if node_id not in self.by_id:
            return None
        entry = HistoryEntry("e1", "run.started", T0, "tests", "user:a", node_id)
        return Page((entry,), None)

    def artifact(self, scope: Scope, *, uri: Any = None, checksum: Any = None) -> list[NodeView]:
        keys = ("uri", "storage_uri", "checksum")
        wanted = {uri, checksum} - {None}
        return [n for n in self.by_id.values() if wanted & {n.props.get(k) for k in keys}]


class FakeRecipes:
    def diff(self, a: str, b: str, scope: Scope) -> dict[str, Any] | None:
        return {"a": a, "b": b, "params": {"changed": {"lr": [0.1, 0.2]}}} if a != "x" else None

    def reproduce(self, node_id: str, scope: Scope) -> dict[str, Any] | None:
        return {"target": node_id} if node_id.startswith("model:") else None


def story() -> FakeReader:
    """Two runs of one experiment on two dataset versions; a model version, served."""
    nodes = [
        view("dataset:p/web", "Dataset", name="web"),
        view(
            "dataset:p/web@v1",
            "DatasetVersion",
            name="web",
            version="v1",
            storage_uri="s3://web/v1",
            checksum="sha256:aa",
            record_count=10,
        ),
        view(
            "dataset:p/web@v2",
            "DatasetVersion",
            "2026-01-06T00:00:00.000000Z",
            name="web",
            version="v2",
            cleaning_rules_json='[{"kind":"dedup"}]',
            split_json='{"train":1}',
        ),
        view("experiment:p/e1", "Experiment", number=1, key="e1"),
        view(
            "environment:p/img",
            "Environment",
            image_name="trainer",
            image_tag="1",
            packages_json='{"torch":"2.5"}',
        ),
        view(
            "run:r1",
            "Run",
            name="a",
            run_number=1,
            status="completed",
            params_json='{"lr":0.1}',
            final_metrics_json='{"loss":1.5}',
            code_repo="git",
            code_commit="abc",
            code_dirty=False,
        ),
        view(
            "run:r2",
            "Run",
            name="b",
            run_number=2,
            status="failed",
            error_type="OOM",
            error_message="out of memory",
        ),
        view(
            "checkpoint:r1/100", "Checkpoint", step=100, size_bytes=5_000_000_000, uri="s3://ck/100"
        ),
        view(
            "model:p/m@1",
            "ModelVersion",
            name="m",
            version="1",
            status="approved",
            fit_for=["chat"],
        ),
        view("model:p/m", "Model", name="m"),
        view("deployment:p/api", "Deployment", name="api", status="active"),
    ]
    e = EdgeView
    edges = [
        e("dataset:p/web@v1", "dataset:p/web", "VERSION_OF"),
        e("dataset:p/web@v2", "dataset:p/web", "VERSION_OF"),
        e("dataset:p/web@v2", "dataset:p/web@v1", "DERIVED_FROM", {"transform": "dedup"}),
        e("run:r1", "dataset:p/web@v1", "USED", {"role": "train"}),
        e("run:r2", "dataset:p/web@v2", "USED", {"role": "train"}),
        e("run:r1", "experiment:p/e1", "PART_OF"),
        e("run:r2", "experiment:p/e1", "PART_OF"),
        e("run:r1", "environment:p/img", "RAN_IN"),
        e("checkpoint:r1/100", "run:r1", "GENERATED_BY"),
        e("run:r2", "checkpoint:r1/100", "RESUMED_FROM"),
        e("model:p/m@1", "run:r1", "GENERATED_BY"),
        e("model:p/m@1", "checkpoint:r1/100", "EXPORTED_FROM"),
        e("model:p/m@1", "model:p/m", "VERSION_OF"),
        e("deployment:p/api", "model:p/m@1", "SERVES", {"traffic_share": 1.0}),
    ]
    return FakeReader(nodes, edges)


def run_query(
    query: str,
    reader: FakeReader | None = None,
    settings: QuerySettings | None = None,
    variables: dict[str, Any] | None = None,
) -> Any:
    """Execute `query` against a fresh schema and context (as one HTTP request would)."""
    settings = settings or QuerySettings()
    context = make_context(settings, reader or story(), FakeRecipes())
    schema = make_schema(settings)
    return asyncio.run(schema.execute(query, variable_values=variables, context_value=context))
