"""Traversal answers: lineage, paths, impact, history and pages of nodes."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import strawberry
from strawberry.scalars import JSON

from provgraph.query.graphql.context import Info
from provgraph.query.graphql.fields import edge_viewed, field, read_from_view
from provgraph.query.graphql.node import Node, to_node
from provgraph.query.read import model
from provgraph.query.recipes.impact import evaluation_results
from provgraph.schemas.graph import Label


@read_from_view
@strawberry.type(description="A relationship, from the derived node to its source.")
class Edge:
    # Read from the edge's view when asked, like a node's fields: a lineage holds up to
    # 10,000 edges, and most clients ask their ends and type, not their properties.
    view: strawberry.Private[model.EdgeView]
    from_: str = edge_viewed(lambda e: e.src, name="from")
    to: str = edge_viewed(lambda e: e.dst)
    type: str = edge_viewed(lambda e: e.type)
    properties: JSON = edge_viewed(lambda e: JSON(dict(e.props)))

    @classmethod
    def of(cls, edge: model.EdgeView) -> Edge:
        return cls(view=edge)


@strawberry.type(description="A bounded breadth-first traversal from `root`.")
class Lineage:
    root: Node
    nodes: list[Node]
    edges: list[Edge]
    truncated: bool = strawberry.field(description="True when the depth or node cap was hit.")
    depths: JSON = strawberry.field(description="{node id: breadth-first depth from the root}")

    @classmethod
    def of(cls, found: model.Lineage, as_of: str | None) -> Lineage:
        return cls(
            root=to_node(found.root, as_of),
            nodes=[to_node(view, as_of) for view in found.nodes],
            edges=[Edge.of(edge) for edge in found.edges],
            truncated=found.truncated,
            depths=JSON(dict(found.depths)),
        )


@strawberry.type(description="A path: nodes[i] is joined to nodes[i + 1] by edges[i].")
class GraphPath:
    nodes: list[Node]
    edges: list[Edge]

    @classmethod
    def of(cls, path: model.GraphPath, as_of: str | None = None) -> GraphPath:
        nodes = [to_node(view, as_of) for view in path.nodes]
        return cls(nodes=nodes, edges=[Edge.of(edge) for edge in path.edges])


@strawberry.type(description="One metric of one evaluation of a model version.")
class EvaluationResult:
    evaluation: strawberry.ID
    suite: str | None
    suite_version: str | None
    datasets: list[strawberry.ID] = strawberry.field(description="The evaluation data.")
    metric: str | None = strawberry.field(description="Null: the evaluation recorded none.")
    value: JSON | None
    passed: bool | None
    evaluated_at: str | None


@strawberry.type(description="A live model version or deployment downstream, and how.")
class ImpactItem:
    node: Node
    path: GraphPath
    view: strawberry.Private[model.NodeView]
    as_of: strawberry.Private[str | None]

    @classmethod
    def of(cls, item: model.ImpactItem, as_of: str | None) -> ImpactItem:
        return cls(
            node=to_node(item.node, as_of),
            path=GraphPath.of(item.path, as_of),
            view=item.node,
            as_of=as_of,
        )

    @field(
        description="A model version's evaluation results, a row per metric, oldest first "
        "(read as its card reads `evaluations`; `provgraph impact` shows the same); empty for "
        "a deployment."
    )
    async def evaluation_results(self, info: Info) -> list[EvaluationResult]:
        if self.view.type != Label.MODEL_VERSION:
            return []
        ctx, as_of = info.context, self.as_of

        def read(ids: list[str]) -> list[list[dict[str, Any]]]:
            return evaluation_results(ctx.reader, ids, ctx.scope, as_of)

        found = await ctx.loaders.batched(("impact.evaluations", as_of), read).load(self.view.id)
        return [EvaluationResult(**row) for row in found]


@strawberry.type(description="One event that touched a node.")
class HistoryEntry:
    event_id: str
    event_type: str
    occurred_at: str
    producer: str | None
    actor: str | None
    subject: str | None
    project: str = strawberry.field(description="The project of the event.")
    principal: str | None = strawberry.field(
        default=None,
        description="The principal the ingest service authenticated for the event, named as "
        "its token was issued (`user:ann`; `actor` is what the client claimed); null for an "
        "event written straight to Kafka.",
    )
    logged_at: str | None = strawberry.field(
        default=None,
        description="When the broker appended the event: server time (`occurredAt` is the "
        "client's).",
    )

    @classmethod
    def of(cls, entry: model.HistoryEntry) -> HistoryEntry:
        return cls(**asdict(entry))  # the same fields, by the same names


@strawberry.type(description="A page of events, newest first.")
class HistoryPage:
    items: list[HistoryEntry]
    next_cursor: str | None = strawberry.field(description="Pass as `after`; null at the end.")


@strawberry.type(description="A page of nodes.")
class NodeConnection:
    items: list[Node]
    next_cursor: str | None = strawberry.field(description="Pass as `after`; null at the end.")
