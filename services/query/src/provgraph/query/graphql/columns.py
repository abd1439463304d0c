"""Column lineage: which input columns feed which output columns, from OpenLineage's
`columnLineage` dataset facets (the latest one of each dataset)."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from provgraph.query.graphql.args import bounded
from provgraph.query.graphql.context import Info
from provgraph.query.graphql.fields import field
from provgraph.query.graphql.node import Node, to_node
from provgraph.query.graphql.query import missing
from provgraph.query.read import model
from provgraph.query.read.model import Direction


@strawberry.type(description="A column: a dataset's id and a field name.")
class ColumnId:
    dataset: strawberry.ID
    field: str

    @classmethod
    def of(cls, key: model.ColumnKey) -> ColumnId:
        return cls(dataset=strawberry.ID(key.dataset), field=key.field)


@strawberry.type(description="A column of the column-level graph.")
class Column:
    dataset: Node = strawberry.field(description="The dataset the column belongs to.")
    field: str
    field_type: str | None = strawberry.field(
        description="The field's type, when the dataset's schema facet gives it."
    )
    depth: int = strawberry.field(description="Hops from the start (the start's columns: 0).")

    @classmethod
    def of(cls, node: model.ColumnNode) -> Column:
        return cls(
            dataset=to_node(node.dataset),
            field=node.key.field,
            field_type=node.field_type,
            depth=node.depth,
        )


@strawberry.type(description="An input column feeding an output column (the data flow).")
class ColumnEdge:
    input: ColumnId
    output: ColumnId
    transformation_description: str | None
    transformation_type: str | None
    transformations: JSON = strawberry.field(
        description="The input field's `transformations`, as the facet gives them."
    )

    @classmethod
    def of(cls, edge: model.ColumnEdge) -> ColumnEdge:
        return cls(
            input=ColumnId.of(edge.input),
            output=ColumnId.of(edge.output),
            transformation_description=edge.transformation_description,
            transformation_type=edge.transformation_type,
            transformations=JSON([dict(t) for t in edge.transformations]),
        )


@strawberry.type(description="The column-level graph around a dataset or one of its fields.")
class ColumnLineage:
    root: Node = strawberry.field(description="The dataset the walk started from.")
    field: str | None = strawberry.field(description="The field it started from, if one.")
    columns: list[Column]
    edges: list[ColumnEdge]
    truncated: bool = strawberry.field(description="True when the column cap was hit.")

    @classmethod
    def of(cls, found: model.ColumnLineage) -> ColumnLineage:
        return cls(
            root=to_node(found.root),
            field=found.field,
            columns=[Column.of(node) for node in found.nodes],
            edges=[ColumnEdge.of(edge) for edge in found.edges],
            truncated=found.truncated,
        )


@strawberry.type
class ColumnQuery:
    @field(
        description="Column lineage from OpenLineage `columnLineage` facets (each dataset's "
        "latest): the columns feeding (UPSTREAM) or fed by (DOWNSTREAM) a dataset's columns, "
        "or one `field`'s, hop by hop. `id` is a dataset (a version answers for its dataset); "
        "depth defaults to 5 (max 20), limit to 1000 columns."
    )
    def column_lineage(
        self,
        info: Info,
        id: strawberry.ID,
        field: str | None = None,
        direction: Direction = Direction.UPSTREAM,
        depth: int | None = None,
        limit: int | None = None,
    ) -> ColumnLineage | None:
        ctx, s = info.context, info.context.settings
        found = ctx.reader.column_lineage(
            str(id),
            ctx.scope,
            field=field,
            direction=direction,
            depth=bounded("depth", depth, s.lineage_default_depth, s.lineage_max_depth),
            limit=bounded("limit", limit, s.lineage_default_limit, s.lineage_max_limit),
        )
        if found is None:
            raise missing(str(id))
        return ColumnLineage.of(found)
