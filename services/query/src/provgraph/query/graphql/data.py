"""Datasets and their versions."""

from __future__ import annotations

from typing import cast

import strawberry
from strawberry.scalars import JSON

from provgraph.query.graphql.context import Info
from provgraph.query.graphql.node import (
    Node,
    decoded,
    field,
    integer,
    one_of,
    register,
    related,
    related_of,
    strings,
    text,
    to_node,
)
from provgraph.query.graphql.refs import DatasetRef, DatasetVersionRef, RunRef
from provgraph.query.model import Direction
from provgraph.schemas.graph import Label, Rel

UP, DOWN = Direction.UPSTREAM, Direction.DOWNSTREAM


@register(Label.DATASET)
@strawberry.type(description="A dataset: the family of its versions.")
class Dataset(Node):
    @strawberry.field
    def name(self) -> str | None:
        return text(self, "name")

    @strawberry.field
    def description(self) -> str | None:
        return text(self, "description")

    @strawberry.field
    async def versions(self, info: Info) -> list[DatasetVersionRef]:
        return await related_of(info, self, Rel.VERSION_OF, DOWN, Label.DATASET_VERSION)


@strawberry.type(description="A DERIVED_FROM edge: the source version and the transform.")
class Derivation:
    transform: str | None
    dataset_version: DatasetVersionRef


@strawberry.type(description="A USED edge seen from the data: who read it, in which role.")
class Usage:
    role: str | None
    consumer: Node


@register(Label.DATASET_VERSION)
@strawberry.type(description="One immutable version of a dataset.")
class DatasetVersion(Node):
    @field(description="The dataset's name.")
    def name(self) -> str | None:
        return text(self, "name")

    @field(description="The version label, e.g. `v2`.")
    def version(self) -> str | None:
        return text(self, "version")

    @strawberry.field
    def storage_uri(self) -> str | None:
        return text(self, "storage_uri")

    @strawberry.field
    def checksum(self) -> str | None:
        return text(self, "checksum")

    @strawberry.field
    def record_count(self) -> int | None:
        return integer(self, "record_count")

    @strawberry.field
    def change_note(self) -> str | None:
        return text(self, "change_note")

    @strawberry.field
    def previous_version(self) -> str | None:
        return text(self, "previous_version")

    @field(description="The cleaning rules applied: [{kind, name, params}].")
    def cleaning_rules(self) -> JSON | None:
        return decoded(self, "cleaning_rules_json")

    @strawberry.field
    def cleaning_rule_names(self) -> list[str]:
        return strings(self, "cleaning_rule_names")

    @strawberry.field
    def split(self) -> JSON | None:
        return decoded(self, "split_json")

    @strawberry.field
    def quality_gates(self) -> JSON | None:
        return decoded(self, "quality_gates_json")

    @field(description="Where the source data came from, as recorded.")
    def source_uri(self) -> str | None:
        return text(self, "source_uri")

    @strawberry.field
    def source_licence(self) -> str | None:
        return text(self, "source_licence")

    @strawberry.field
    async def dataset(self, info: Info) -> DatasetRef | None:
        return cast(
            "DatasetRef | None", await one_of(info, self, Rel.VERSION_OF, UP, Label.DATASET)
        )

    @field(description="The versions this one was derived from.")
    async def derived_from(self, info: Info) -> list[Derivation]:
        pairs = await related(info, self, Rel.DERIVED_FROM, UP)
        return [
            Derivation(
                transform=edge.props.get("transform"),
                dataset_version=DatasetVersion(view=v, as_of=self.as_of),
            )
            for edge, v in pairs
            if v.type == Label.DATASET_VERSION
        ]

    @field(description="The versions derived from this one.")
    async def derivatives(self, info: Info) -> list[DatasetVersionRef]:
        return await related_of(info, self, Rel.DERIVED_FROM, DOWN, Label.DATASET_VERSION)

    @field(description="The run that produced this version, if one did.")
    async def produced_by(self, info: Info) -> RunRef | None:
        return cast("RunRef | None", await one_of(info, self, Rel.GENERATED_BY, UP, Label.RUN))

    @field(description="Runs and evaluations that read this version.")
    async def used_by(self, info: Info) -> list[Usage]:
        pairs = await related(info, self, Rel.USED, DOWN)
        return [Usage(role=e.props.get("role"), consumer=to_node(v, self.as_of)) for e, v in pairs]
