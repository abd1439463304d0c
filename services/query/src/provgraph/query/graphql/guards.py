"""`lintMetrics`, `lintNames`, `collisions`: the guards a project's conventions set
(`recipes/guards.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import strawberry

from provgraph.query.graphql.context import Info
from provgraph.query.graphql.fields import field


@strawberry.type(description="A declared metric alias: `alias` is read as `canonical`.")
class MetricAlias:
    alias: str
    canonical: str


@strawberry.type(description="One spelling of a metric and how many records use it.")
class MetricSpelling:
    name: str
    records: int = strawberry.field(description="Runs and evaluations that use this name.")
    alias_of: str | None = strawberry.field(description="Its canonical name, when declared.")


@strawberry.type(description="Metric names that differ only in spelling.")
class MetricGroup:
    key: str = strawberry.field(description="The spelling-blind form the names share.")
    canonical: str = strawberry.field(
        description="The declared canonical name, else the most used spelling."
    )
    settled: bool = strawberry.field(
        description="Every other spelling is declared an alias of the canonical name."
    )
    names: list[MetricSpelling]
    undeclared: list[str] = strawberry.field(
        description="Spellings still to declare as aliases of the canonical name."
    )


@strawberry.type(description="A project's metric names, spelled more ways than one.")
class MetricLint:
    project: str
    metrics: int = strawberry.field(description="Distinct metric names in the project.")
    aliases: list[MetricAlias]
    groups: list[MetricGroup]


@strawberry.type(description="A record whose name breaks its naming rule.")
class NameBreak:
    id: strawberry.ID
    name: str | None
    problem: str
    suggestion: str | None = strawberry.field(
        description="The name the rule builds from the record's facts (null: it holds `*` "
        "or a fact the record lacks)."
    )


@strawberry.type(description="One kind's naming rule and the records that break it.")
class NameRuleReport:
    kind: str = strawberry.field(description="run, model_version, dataset_version or image.")
    rule: str
    checked: int
    truncated: bool = strawberry.field(description="More records than were checked.")
    breaks: list[NameBreak]


@strawberry.type(description="A project's naming rules and what breaks them.")
class NameLint:
    project: str
    enforced: bool = strawberry.field(description="Ingest refuses names that break a rule.")
    rules: int
    kinds: list[NameRuleReport]


@strawberry.type(description="An output and the run that wrote it.")
class OutputWriter:
    id: strawberry.ID
    kind: str
    run: strawberry.ID | None
    experiment: strawberry.ID | None


@strawberry.type(description="An output stored out of place.")
class MisplacedOutput:
    id: strawberry.ID
    kind: str
    run: strawberry.ID | None
    experiment: strawberry.ID | None
    uri: str
    problem: str


@strawberry.type(description="A URI written by more than one job.")
class SharedUri:
    uri: str
    writers: list[OutputWriter]


@strawberry.type(description="A project's outputs out of place, and URIs two jobs wrote.")
class Collisions:
    project: str
    storage_roots: list[str]
    enforced: bool = strawberry.field(description="Ingest refuses such outputs.")
    checked: int
    truncated: bool
    out_of_place: list[MisplacedOutput]
    shared: list[SharedUri]


T = TypeVar("T")


def typed(cls: type[T], data: Mapping[str, Any], **lists: Any) -> T:
    """`cls` built from a recipe's answer `data`; each field named in `lists` is a list, each
    item built by its builder (a type, or a function of one item)."""
    plain = {k: v for k, v in data.items() if k not in lists}
    return cls(**plain, **{k: [build(i) for i in data[k]] for k, build in lists.items()})


def _items(cls: type[T]) -> Any:
    return lambda item: cls(**item)


def metric_lint(answer: Mapping[str, Any]) -> MetricLint:
    """The typed answer of `Guards.lint_metrics`."""
    group = lambda g: typed(MetricGroup, g, names=_items(MetricSpelling))  # noqa: E731
    return typed(MetricLint, answer, aliases=_items(MetricAlias), groups=group)


def name_lint(answer: Mapping[str, Any]) -> NameLint:
    """The typed answer of `Guards.lint_names`."""
    kind = lambda k: typed(NameRuleReport, k, breaks=_items(NameBreak))  # noqa: E731
    return typed(NameLint, answer, kinds=kind)


def collisions_answer(answer: Mapping[str, Any]) -> Collisions:
    """The typed answer of `Guards.collisions`."""
    shared = lambda s: typed(SharedUri, s, writers=_items(OutputWriter))  # noqa: E731
    return typed(Collisions, answer, out_of_place=_items(MisplacedOutput), shared=shared)


@strawberry.type
class GuardsQuery:
    @field(
        description="Metric names of a project that differ only in spelling (`val/loss`, "
        "`validation/loss`, `val_loss`), with the aliases declared (`provgraph policy set "
        "--metric-alias`) and those still to declare."
    )
    def lint_metrics(self, info: Info, project: str) -> MetricLint:
        ctx = info.context
        guards = ctx.services.guards()
        return metric_lint(guards.lint_metrics(project, ctx.scope))

    @field(
        description="Per kind with a naming rule (`provgraph policy set --name-rule`), the "
        "records whose names break it, each with the name the rule builds from its facts."
    )
    def lint_names(self, info: Info, project: str) -> NameLint:
        ctx = info.context
        guards = ctx.services.guards()
        return name_lint(guards.lint_names(project, ctx.scope))

    @field(
        description="A project's outputs outside its storage roots or at personal paths, and "
        "URIs written by runs of more than one experiment."
    )
    def collisions(self, info: Info, project: str) -> Collisions:
        ctx = info.context
        guards = ctx.services.guards()
        return collisions_answer(guards.collisions(project, ctx.scope))
