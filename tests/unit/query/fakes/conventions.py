"""`ConventionReads` in memory: a project's conventions, metric names, named records and
outputs answered from nodes and edges as `ConventionReader`'s Cypher answers them
(tests/contracts/convention_reads.py holds the two to the same answers)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from support.contract_graphs_recipes import ViewGraph

from provgraph.query.read.convention_reads import Named, Output, latest_conventions
from provgraph.query.read.model import EdgeView, NodeView, Scope
from provgraph.schemas.conventions import NO_CONVENTIONS, Conventions, NamedKind, day_of
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.ids import project_id
from provgraph.schemas.records import POLICY_RECORDS

_KIND_LABEL = {
    NamedKind.RUN: Label.RUN,
    NamedKind.MODEL_VERSION: Label.MODEL_VERSION,
    NamedKind.DATASET_VERSION: Label.DATASET_VERSION,
    NamedKind.IMAGE: Label.ENVIRONMENT,
}
_OUTPUTS = (Label.CHECKPOINT, Label.DATASET_VERSION, Label.MODEL_VERSION)


class FakeConventionReads:
    """The graph of `nodes` and `edges` (none by default: every project is unknown)."""

    def __init__(self, nodes: Sequence[NodeView] = (), edges: Sequence[EdgeView] = ()) -> None:
        self.graph = ViewGraph(nodes, edges)

    def _own(self, project: str, scope: Scope, *labels: Label) -> list[NodeView]:
        found = [n for label in labels for n in self.graph.every(scope, label)]
        return [
            n for n in found if n.project == project and n.deleted_at is None and not n.placeholder
        ]

    def conventions(self, project: str, scope: Scope) -> Conventions | None:
        node = self.graph.node(project_id(project), scope, Label.PROJECT)
        if node is None:
            readable = (self.graph.node(n, scope) for n in self.graph.by_id)
            known = any(n is not None and n.project == project for n in readable)
            return NO_CONVENTIONS if known else None
        history = {k: v for k, v in node.props.items() if k.startswith(POLICY_RECORDS)}
        return latest_conventions(history)

    def metric_names(self, project: str, scope: Scope) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for node in self._own(project, scope, Label.RUN, Label.EVALUATION):
            names = {
                k.split(".", 1)[1] for k in node.props if k.startswith(("metric.", "final_metric."))
            }
            counts.update(names)
        return dict(sorted(counts.items()))

    def _first(self, node_id: str, rel: Rel, scope: Scope, label: Label) -> NodeView | None:
        ids = self.graph.target_ids(node_id, rel, scope, label)
        return self.graph.node(ids[0], scope) if ids else None

    def named(self, project: str, kind: NamedKind, scope: Scope, limit: int) -> list[Named]:
        found = []
        for n in self._own(project, scope, _KIND_LABEL[kind]):
            named = self._named(n, kind, scope)
            if named is not None:
                found.append(named)
        found.sort(key=lambda r: (r.recorded_at or "", r.id))
        return [
            Named(r.id, r.name, r.recorded_at, _with_own(r.facts, project, r.recorded_at))
            for r in found[:limit]
        ]

    def _named(self, n: NodeView, kind: NamedKind, scope: Scope) -> Named | None:
        p: dict[str, Any] = dict(n.props)
        if kind is NamedKind.RUN:
            x = self._first(n.id, Rel.PART_OF, scope, Label.EXPERIMENT)
            number = p.get("run_number")
            commit = p.get("code_commit")
            facts = {
                "experiment": x.props.get("key") if x else None,
                "run_number": None if number is None else str(number),
                "run_id": p.get("run_key"),
                "commit": commit[:7] if commit else None,
            }
            return Named(n.id, p.get("name"), p.get("started_at"), facts)
        if kind is NamedKind.MODEL_VERSION:
            r = self._first(n.id, Rel.GENERATED_BY, scope, Label.RUN)
            facts = {"model": p.get("name"), "run_id": r.props.get("run_key") if r else None}
            return Named(n.id, p.get("version"), p.get("registered_at"), facts)
        if kind is NamedKind.DATASET_VERSION:
            facts = {"dataset": p.get("name"), "previous_version": p.get("previous_version")}
            return Named(n.id, p.get("version"), p.get("created_at"), facts)
        image = p.get("image_name")
        if image is None:
            return None
        tag = p.get("image_tag")
        name = image if tag is None else f"{image}:{tag}"
        return Named(n.id, name, n.first_seen_at, {"environment": p.get("key")})

    def outputs(self, project: str, scope: Scope, limit: int) -> list[Output]:
        found = []
        for n in self._own(project, scope, *_OUTPUTS):
            key = "storage_uri" if n.type == Label.DATASET_VERSION else "uri"
            uri = n.props.get(key)
            if uri is None:
                continue
            run = self._first(n.id, Rel.GENERATED_BY, scope, Label.RUN)
            x = self._first(run.id, Rel.PART_OF, scope, Label.EXPERIMENT) if run else None
            found.append(
                (
                    uri,
                    n.first_seen_at or "",
                    n.id,
                    Output(n.id, n.type, uri, run and run.id, x and x.id),
                )
            )
        found.sort(key=lambda t: t[:3])
        return [t[3] for t in found[:limit]]


def _with_own(
    facts: Mapping[str, str | None], project: str, at: str | None
) -> dict[str, str | None]:
    """`facts` with those every kind has: the project and the day the record was recorded."""
    return {**facts, "project": project, "date": day_of(at)}
