"""Root lookups: by id, by natural key, filtered lists, search, artifacts and history."""

from __future__ import annotations

from typing import Any

import strawberry

from provgraph.core.errors import NotFoundError
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.graphql.args import NodeType, labels, page_size, stamp
from provgraph.query.graphql.context import Info
from provgraph.query.graphql.data import DatasetVersion
from provgraph.query.graphql.dossier import dossier_field
from provgraph.query.graphql.fields import field
from provgraph.query.graphql.lineage import HistoryEntry, HistoryPage, NodeConnection
from provgraph.query.graphql.models import ModelVersion
from provgraph.query.graphql.node import Node, to_node
from provgraph.query.graphql.runs import Experiment
from provgraph.query.read.model import NodeView, NodeWhere
from provgraph.query.recipes.listing import Listing
from provgraph.schemas.graph import Label


def missing(what: str) -> NotFoundError:
    # Absent and unreadable answer the same, on purpose: existence is not leaked.
    return NotFoundError(f"Not found: {what}.")


@strawberry.input(description="A run parameter and its value (compared as text).")
class ParamFilter:
    name: str
    value: str


@strawberry.input(description="Filters of `nodes` and `search`; all given ones must hold.")
class NodeFilter:
    project: str | None = None
    experiment: str | None = strawberry.field(default=None, description="An experiment id.")
    status: str | None = None
    since: str | None = strawberry.field(default=None, description="first seen at or after")
    until: str | None = strawberry.field(default=None, description="first seen before")
    param: ParamFilter | None = None
    metric: str | None = strawberry.field(
        default=None,
        description="A run's metric condition such as `final:val/loss<1.5` (operators < <= > "
        ">= =; a bare name is its final value, else its last logged one): keeps runs only.",
    )
    uses: strawberry.ID | None = strawberry.field(
        default=None,
        description="A dataset version id the node used, or the run that generated it used.",
    )

    def where(self, project: str | None = None) -> NodeWhere:
        """The read model's filter; `project` (search's own argument) must agree with it."""
        if None not in (project, self.project) and project != self.project:
            raise InvalidArgumentError(
                f"project: given twice, as {project!r} and in the filter as {self.project!r}",
                argument="project",
            )
        return NodeWhere(
            project=self.project if project is None else project,
            experiment=self.experiment,
            status=self.status,
            since=stamp("since", self.since),
            until=stamp("until", self.until),
            param=(self.param.name, self.param.value) if self.param else None,
            uses=None if self.uses is None else str(self.uses),
        )


def _listing(info: Info) -> Listing:
    return info.context.services.listing()


def _by_name_and_version(node: type[Node], label: Label, description: str) -> Any:
    """A root field: the `label` node of a name and a version label (in `project` if given),
    as a `node`; not found when there is none."""

    def resolve(info: Info, name: str, version: str, project: str | None = None) -> Node | None:
        return node(view=_find(info, label, project, name=name, version=version))

    return field(description, graphql_type=node | None)(resolve)


@strawberry.type
class LookupQuery:
    @field(description="A node by id; `asOf` answers from what the graph knew then.")
    async def node(self, info: Info, id: strawberry.ID, as_of: str | None = None) -> Node | None:
        when = stamp("asOf", as_of)
        view = await info.context.loaders.node(when).load(str(id))
        if view is None:
            raise missing(str(id))
        return to_node(view, when)

    model_version = _by_name_and_version(
        ModelVersion, Label.MODEL_VERSION, "A model version by model name and version."
    )
    dataset_version = _by_name_and_version(
        DatasetVersion,
        Label.DATASET_VERSION,
        "A dataset version by dataset name and version label.",
    )

    dossier = dossier_field()

    @field(description="An experiment by number.")
    def experiment(self, info: Info, number: int, project: str | None = None) -> Experiment | None:
        return Experiment(view=_find(info, Label.EXPERIMENT, project, number=number))

    @field(description="Nodes of a type, filtered, oldest first, paginated.")
    def nodes(
        self,
        info: Info,
        type: NodeType,
        filter: NodeFilter | None = None,
        first: int | None = None,
        after: str | None = None,
    ) -> NodeConnection:
        ctx, f = info.context, filter or NodeFilter()
        page = _listing(info).nodes(
            type.value,
            ctx.scope,
            f.where(),
            metric=f.metric,
            first=page_size(first, ctx.settings),
            after=after,
        )
        return NodeConnection(items=[to_node(v) for v in page.items], next_cursor=page.next_cursor)

    @field(
        description="Case-insensitive search over names and ids, within `project` if given, "
        "kept to `types` and to what `filter` asks (the filters of `nodes`)."
    )
    def search(
        self,
        info: Info,
        text: str,
        types: list[NodeType] | None = None,
        first: int | None = None,
        project: str | None = None,
        filter: NodeFilter | None = None,
    ) -> list[Node]:
        ctx, f = info.context, filter or NodeFilter()
        found = _listing(info).search(
            text,
            ctx.scope,
            types=labels(types),
            where=f.where(project),
            metric=f.metric,
            first=page_size(first, ctx.settings),
        )
        return [to_node(v) for v in found]

    @field(
        description="The projects the caller may read that hold a node (their access grants "
        "count), by name; every project of the graph for a caller who reads everything."
    )
    def projects(self, info: Info) -> list[str]:
        ctx = info.context
        return ctx.reader.projects(ctx.scope)

    @field(description="What a file is: versions stored at `uri` or with `checksum`.")
    def artifact(
        self, info: Info, uri: str | None = None, checksum: str | None = None
    ) -> list[Node]:
        if uri is None and checksum is None:
            raise InvalidArgumentError("Give a uri, a checksum, or both.")
        ctx = info.context
        found = ctx.reader.artifact(ctx.scope, uri=uri, checksum=checksum)
        return [to_node(v) for v in found]

    @field(description="The events that built a node, newest first.")
    def history(
        self, info: Info, id: strawberry.ID, first: int | None = None, after: str | None = None
    ) -> HistoryPage | None:
        ctx = info.context
        size = page_size(first, ctx.settings)
        page = ctx.reader.history(str(id), ctx.scope, first=size, after=after)
        if page is None:
            raise missing(str(id))
        items = [HistoryEntry.of(entry) for entry in page.items]
        return HistoryPage(items=items, next_cursor=page.next_cursor)


def _find(
    info: Info,
    label: str,
    project: str | None,
    *,
    name: str | None = None,
    version: str | None = None,
    number: int | None = None,
) -> NodeView:
    ctx = info.context
    found = ctx.reader.find(
        label, ctx.scope, project=project, name=name, version=version, number=number
    )
    if found is None:
        key = {"name": name, "version": version, "number": number}
        described = ", ".join(f"{k}={v}" for k, v in key.items() if v is not None)
        raise missing(f"{label} {described}")
    return found
