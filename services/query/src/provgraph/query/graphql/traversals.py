"""Root traversals: lineage, impact, paths, and the diff / reproduce recipes."""

from __future__ import annotations

from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from provgraph.query.errors import missing_sides
from provgraph.query.graphql.args import NodeType, bounded, labels, stamp
from provgraph.query.graphql.context import Info
from provgraph.query.graphql.fields import field
from provgraph.query.graphql.lineage import GraphPath, ImpactItem, Lineage
from provgraph.query.graphql.query import missing
from provgraph.query.read.model import Direction


@strawberry.type
class TraversalQuery:
    @field(
        description="Distinct nodes within `depth` hops (breadth-first) and the edges among "
        "them. depth defaults to 5 (max 20), limit to 1000 nodes; `types` filters the answer."
    )
    def lineage(
        self,
        info: Info,
        id: strawberry.ID,
        direction: Direction = Direction.UPSTREAM,
        depth: int | None = None,
        types: list[NodeType] | None = None,
        as_of: str | None = None,
        limit: int | None = None,
    ) -> Lineage | None:
        ctx, s = info.context, info.context.settings
        when = stamp("asOf", as_of)
        found = ctx.reader.lineage(
            str(id),
            ctx.scope,
            direction=direction,
            depth=bounded("depth", depth, s.lineage_default_depth, s.lineage_max_depth),
            types=labels(types),
            as_of=when,
            limit=bounded("limit", limit, s.lineage_default_limit, s.lineage_max_limit),
        )
        if found is None:
            raise missing(str(id))
        return Lineage.of(found, when)

    @field(
        description="Live model versions and deployments downstream, each with one shortest path."
    )
    def impact(
        self, info: Info, id: strawberry.ID, as_of: str | None = None
    ) -> list[ImpactItem] | None:
        ctx, when = info.context, stamp("asOf", as_of)
        found = ctx.reader.impact(str(id), ctx.scope, when)
        if found is None:
            raise missing(str(id))
        return [ImpactItem.of(item, when) for item in found]

    @field(description="The shortest lineage path(s) between two nodes.")
    async def path(
        self,
        info: Info,
        from_: Annotated[strawberry.ID, strawberry.argument(name="from")],
        to: strawberry.ID,
    ) -> list[GraphPath] | None:
        ctx = info.context
        max_depth = ctx.settings.lineage_max_depth
        found = ctx.reader.paths(str(from_), str(to), ctx.scope, max_depth=max_depth)
        if found is None:
            # Say which end is missing: both are read again only on this failure path.
            ends = {"from": str(from_), "to": str(to)}
            views = await ctx.loaders.node(None).load_many(list(ends.values()))
            found_ends = zip(ends.items(), views, strict=True)
            raise missing_sides({name: (given, view) for (name, given), view in found_ends})
        return [GraphPath.of(p) for p in found]

    @field(
        description="What changed between two runs or two model versions, walked up the chain; "
        "`dataset_versions` (when the runs used two versions of one dataset) opens each such "
        "step: both versions' recorded facts (change note, cleaning rules, split, mix, counts, "
        "quality gates, source) side by side, `changed` naming those that differ."
    )
    def diff(self, info: Info, a: strawberry.ID, b: strawberry.ID) -> JSON | None:
        ctx = info.context
        return JSON(ctx.recipes.diff(str(a), str(b), ctx.scope))

    @field(description="The full recipe of a model version or checkpoint.")
    def reproduce(self, info: Info, id: strawberry.ID) -> JSON | None:
        ctx = info.context
        found = ctx.recipes.reproduce(str(id), ctx.scope)
        if found is None:
            raise missing(str(id))
        return JSON(found)
