"""`BestEnvReads` in memory: evaluation rows, environment pairs and the runs of a package,
answered from nodes and edges as `BestEnvReader`'s Cypher answers them
(tests/contracts/best_env_reads.py holds the two to the same answers)."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from support.contract_graphs_recipes import Step, ViewGraph, stored

from provgraph.query.read.best_env_reads import ENV_CHAIN_DEPTH, Record
from provgraph.query.read.model import EdgeView, NodeView, Scope
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import FIRST_SEEN_AT, PROJECT, dotted

_RUN_FIELDS = ("id", PROJECT, "name", "run_number", "status", "started_at", "ended_at")


def _first(props: dict[str, Any], *keys: str) -> Any:
    """Cypher's `coalesce` of the properties `keys`."""
    return next((props[k] for k in keys if props.get(k) is not None), None)


def _text(value: Any) -> str:
    """Cypher's `toString` of a stored value."""
    return str(value).lower() if isinstance(value, bool) else str(value)


class FakeBestEnvReads:
    """The graph of `nodes` and `edges` (none by default: every model and snapshot is
    missing, and no run ran anywhere)."""

    def __init__(self, nodes: Sequence[NodeView] = (), edges: Sequence[EdgeView] = ()) -> None:
        self.graph = ViewGraph(nodes, edges)

    # ---- best ----------------------------------------------------------------------------------

    def evaluations(self, model: str, metric: str, fetch: int, scope: Scope) -> list[Record] | None:
        found = self.graph.node(model, scope, Label.MODEL)
        if found is None:
            return None
        key = dotted("metric", metric)
        rows = [
            self._row(v, e, key, scope)
            for _, v in self.graph.sources(found.id, Rel.VERSION_OF, scope, Label.MODEL_VERSION)
            if v.deleted_at is None
            for _, e in self.graph.sources(v.id, Rel.EVALUATED, scope, Label.EVALUATION)
            if e.deleted_at is None and e.props.get(key) is not None
        ]
        return sorted(rows, key=lambda r: (r["version"], r["evaluation"]))[:fetch]

    def _row(self, version: NodeView, evaluation: NodeView, key: str, scope: Scope) -> Record:
        v, e = stored(version), stored(evaluation)
        used = self.graph.target_ids(evaluation.id, Rel.USED, scope, Label.DATASET_VERSION)
        return {
            "version": version.id,
            "label": v.get("version"),
            "status": v.get("status"),
            "registered_at": _first(v, "registered_at", FIRST_SEEN_AT),
            "evaluation": evaluation.id,
            "suite": e.get("suite"),
            "suite_version": e.get("suite_version"),
            "evaluated_at": _first(e, "evaluated_at", FIRST_SEEN_AT),
            "value": e[key],
            "datasets": sorted(set(used)),
        }

    # ---- env-diff ------------------------------------------------------------------------------

    def environment_pair(self, a: str, b: str, scope: Scope) -> Record:
        left = self.graph.node(a, scope, Label.ENVIRONMENT)
        right = self.graph.node(b, scope, Label.ENVIRONMENT)
        path = self._path(left, right, scope) if left is not None and right is not None else None
        return {
            "a": stored(left) if left is not None else None,
            "b": stored(right) if right is not None else None,
            "paths": [path] if path is not None else [],
        }

    def _path(self, start: NodeView, end: NodeView, scope: Scope) -> Record | None:
        """A shortest BASED_ON path either way, through readable snapshots only, at most
        `ENV_CHAIN_DEPTH` steps; None from a snapshot to itself."""
        if start.id == end.id:
            return None
        came: dict[str, tuple[EdgeView, str] | None] = {start.id: None}
        queue, level = deque([start.id]), {start.id: 0}
        while queue and end.id not in came:
            current = queue.popleft()
            if level[current] == ENV_CHAIN_DEPTH:
                continue
            for edge, node in self._based(current, scope):
                if node.id not in came:
                    came[node.id], level[node.id] = (edge, current), level[current] + 1
                    queue.append(node.id)
        return self._unwound(end.id, came) if end.id in came else None

    def _based(self, env: str, scope: Scope) -> list[Step]:
        both_ways = self.graph.targets(env, Rel.BASED_ON, scope, Label.ENVIRONMENT)
        return both_ways + self.graph.sources(env, Rel.BASED_ON, scope, Label.ENVIRONMENT)

    def _unwound(self, end: str, came: dict[str, tuple[EdgeView, str] | None]) -> Record:
        nodes, rels, step = [end], list[dict[str, str]](), came[end]
        while step is not None:
            edge, previous = step
            nodes.insert(0, previous)
            rels.insert(0, {"src": edge.src, "dst": edge.dst})
            step = came[previous]
        return {"nodes": [stored(self.graph.by_id[n]) for n in nodes], "rels": rels}

    # ---- runs-with -----------------------------------------------------------------------------

    def runs_with(
        self,
        keys: Sequence[str],
        version: str | None,
        project: str | None,
        fetch: int,
        scope: Scope,
    ) -> list[Record]:
        found: list[tuple[tuple[str, str], Record]] = []
        for env in self.graph.every(scope, Label.ENVIRONMENT):
            props = stored(env)
            hits = [
                {"key": k, "version": _text(props[k])} for k in keys if props.get(k) is not None
            ]
            if project not in (None, env.project) or not hits:
                continue
            if version is not None and all(h["version"] != version for h in hits):
                continue
            for _, run in self.graph.sources(env.id, Rel.RAN_IN, scope, Label.RUN):
                if run.deleted_at is None:
                    found.append(self._run_row(run, env, hits, scope))
        found.sort(key=lambda row: row[0])
        return [row for _, row in found[:fetch]]

    def _run_row(
        self, run: NodeView, env: NodeView, hits: list[dict[str, str]], scope: Scope
    ) -> tuple[tuple[str, str], Record]:
        """A row and its place: oldest start (else first seen) first, then by id."""
        props = stored(run)
        experiments = self.graph.target_ids(run.id, Rel.PART_OF, scope, Label.EXPERIMENT)
        row = {
            "run": {k: props.get(k) for k in _RUN_FIELDS},
            "environment": env.id,
            "hits": [dict(h) for h in hits],
            "experiment": experiments[0] if experiments else None,
        }
        return (str(_first(props, "started_at", FIRST_SEEN_AT)), run.id), row
