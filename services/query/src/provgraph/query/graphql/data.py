"""Datasets and their versions."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from provgraph.query.graphql.fields import Long, decoded, integer, strings, text
from provgraph.query.graphql.node import DOWN, UP, Node, linked, neighbour, neighbours, register
from provgraph.query.graphql.refs import DatasetRef, DatasetVersionRef, RunRef
from provgraph.schemas.graph import Label, Rel


@register(Label.DATASET)
@strawberry.type(description="A dataset: the family of its versions.")
class Dataset(Node):
    name: str | None = text("name")
    description: str | None = text("description")
    versions: list[DatasetVersionRef] = neighbours(Rel.VERSION_OF, DOWN, Label.DATASET_VERSION)


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
    name: str | None = text("name", "The dataset's name.")
    version: str | None = text("version", "The version label, e.g. `v2`.")
    storage_uri: str | None = text("storage_uri")
    checksum: str | None = text("checksum")
    record_count: Long | None = integer("record_count")
    change_note: str | None = text("change_note")
    previous_version: str | None = text("previous_version")
    cleaning_rules: JSON | None = decoded(
        "cleaning_rules", "The cleaning rules applied: [{kind, name, params}]."
    )
    cleaning_rule_names: list[str] = strings("cleaning_rule_names")
    split: JSON | None = decoded("split")
    quality_gates: JSON | None = decoded("quality_gates")
    source_uri: str | None = text("source_uri", "Where the source data came from, as recorded.")
    source_licence: str | None = text("source_licence", "The source's licence, as recorded.")
    source_obtained_by: str | None = text(
        "source_obtained_by", "How the source data was obtained (a crawl, a purchase...)."
    )
    source_compliance_note: str | None = text(
        "source_compliance_note", "The compliance note recorded with the source."
    )
    dataset: DatasetRef | None = neighbour(Rel.VERSION_OF, UP, Label.DATASET)
    derived_from: list[Derivation] = linked(
        Rel.DERIVED_FROM,
        UP,
        Label.DATASET_VERSION,
        lambda edge, v: Derivation(transform=edge.props.get("transform"), dataset_version=v),
        "The versions this one was derived from.",
    )
    derivatives: list[DatasetVersionRef] = neighbours(
        Rel.DERIVED_FROM, DOWN, Label.DATASET_VERSION, "The versions derived from this one."
    )
    produced_by: RunRef | None = neighbour(
        Rel.GENERATED_BY, UP, Label.RUN, "The run that produced this version, if one did."
    )
    used_by: list[Usage] = linked(
        Rel.USED,
        DOWN,
        None,
        lambda edge, v: Usage(role=edge.props.get("role"), consumer=v),
        "Runs and evaluations that read this version.",
    )
