"""`bestModelVersion`, `environmentDiff` and `runsWithPackage`: which model version is best on
one evaluation set and what made it better, what changed between two environment snapshots,
and which runs ran with a package (`recipes/best_env_service.py`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import strawberry
from strawberry.scalars import JSON

from provgraph.query.graphql.args import bounded
from provgraph.query.graphql.context import GraphContext, Info
from provgraph.query.graphql.fields import Long, as_int, as_long, as_text, field, picked
from provgraph.query.graphql.query import missing
from provgraph.query.recipes.best_env_service import (
    RUNS_WITH_DEFAULT,
    RUNS_WITH_MAX,
    BestAndEnvironments,
)


def _text(value: Any) -> str | None:
    """A recorded value as text: strings as they are, other JSON values as JSON."""
    return value if isinstance(value, str) or value is None else json.dumps(value)


@strawberry.type(
    description="What a metric was measured on: evaluation dataset versions "
    "(all of them, as a set), suite and suite version. Values of two sets are "
    "never compared."
)
class EvaluationSet:
    datasets: list[strawberry.ID]
    suite: str | None
    suite_version: str | None
    versions: int | None = strawberry.field(
        description="Model versions evaluated on this set with the metric (in `evaluationSets`)."
    )

    @classmethod
    def of(cls, found: Mapping[str, Any]) -> EvaluationSet:
        return cls(
            datasets=[strawberry.ID(d) for d in found["datasets"]],
            suite=found["suite"],
            suite_version=found["suite_version"],
            versions=as_int(found.get("versions")),
        )


@strawberry.type(description="A model version's value of the metric: its latest evaluation.")
class ScoredVersion:
    model_version: strawberry.ID
    label: str | None
    status: str | None
    registered_at: str
    evaluation: strawberry.ID
    evaluated_at: str
    value: float

    @classmethod
    def of(cls, found: Mapping[str, Any]) -> ScoredVersion:
        return cls(
            model_version=strawberry.ID(found["version"]),
            label=as_text(found["label"]),
            status=as_text(found["status"]),
            registered_at=found["registered_at"],
            evaluation=strawberry.ID(found["evaluation"]),
            evaluated_at=found["evaluated_at"],
            value=float(found["value"]),
        )


@strawberry.type(description="The best model version by one metric on one evaluation set.")
class BestModelVersion:
    model: strawberry.ID
    metric: str
    higher_is_better: bool
    evaluation_set: EvaluationSet | None = strawberry.field(
        description="The set compared on; null when none or several matched (see `message`)."
    )
    evaluation_sets: list[EvaluationSet] = strawberry.field(
        description="Every set on which the metric was recorded for this model."
    )
    ambiguous: bool = strawberry.field(
        description="Several sets matched: no best is chosen; name one with `datasets`/`suite`."
    )
    best: ScoredVersion | None
    previous_best: ScoredVersion | None = strawberry.field(
        description="The best among the versions registered before the best."
    )
    delta: float | None = strawberry.field(description="best.value - previousBest.value.")
    ranking: list[ScoredVersion] = strawberry.field(description="Best first.")
    message: str | None
    truncated: bool = strawberry.field(description="True when the evaluation cap was hit.")
    diff: JSON | None = strawberry.field(
        description="The diff recipe from the previous best to the best (see `diff`)."
    )

    @classmethod
    def of(cls, found: Mapping[str, Any]) -> BestModelVersion:
        chosen, best, previous = found["evaluation_set"], found["best"], found["previous_best"]
        return cls(
            **picked(found, "metric", "higher_is_better", "ambiguous", "delta", "message"),
            model=strawberry.ID(found["model"]),
            evaluation_set=EvaluationSet.of(chosen) if chosen else None,
            evaluation_sets=[EvaluationSet.of(s) for s in found["evaluation_sets"]],
            best=ScoredVersion.of(best) if best else None,
            previous_best=ScoredVersion.of(previous) if previous else None,
            ranking=[ScoredVersion.of(s) for s in found["ranking"]],
            truncated=found["truncated"],
            diff=JSON(found["diff"]) if found["diff"] is not None else None,
        )


@strawberry.type(description="One difference between two environment snapshots.")
class EnvironmentChange:
    section: str = strawberry.field(
        description="packages, frameworks, parallel_libs, compute_libs, system, "
        "python_version, driver_version, image or base_image."
    )
    name: str
    change: str = strawberry.field(description="added, removed or changed.")
    a: str | None
    b: str | None

    @classmethod
    def of(cls, found: Mapping[str, Any]) -> EnvironmentChange:
        same = picked(found, "section", "name", "change")
        return cls(**same, a=_text(found["a"]), b=_text(found["b"]))


@strawberry.type(description="One BASED_ON step between two snapshots of the chain.")
class EnvironmentStep:
    from_: strawberry.ID = strawberry.field(name="from")
    to: strawberry.ID
    relation: str = strawberry.field(description="newer: `to` is based on `from`; else older.")
    changes: list[EnvironmentChange]

    @classmethod
    def of(cls, found: Mapping[str, Any]) -> EnvironmentStep:
        return cls(
            from_=strawberry.ID(found["from"]),
            to=strawberry.ID(found["to"]),
            relation=found["relation"],
            changes=[EnvironmentChange.of(c) for c in found["changes"]],
        )


@strawberry.type(description="What changed from environment snapshot a to b.")
class EnvironmentDiff:
    a: strawberry.ID
    b: strawberry.ID
    same: bool
    related: bool = strawberry.field(description="a and b are linked by a BASED_ON chain.")
    changes: list[EnvironmentChange]
    chain: list[EnvironmentStep] | None = strawberry.field(
        description="The shortest BASED_ON chain from a to b, step by step; null if unrelated."
    )

    @classmethod
    def of(cls, found: Mapping[str, Any]) -> EnvironmentDiff:
        chain = found["chain"]
        return cls(
            **picked(found, "same", "related"),
            a=strawberry.ID(found["a"]),
            b=strawberry.ID(found["b"]),
            changes=[EnvironmentChange.of(c) for c in found["changes"]],
            chain=None if chain is None else [EnvironmentStep.of(s) for s in chain],
        )


@strawberry.type(description="A run whose environment recorded the package.")
class RunWithPackage:
    id: strawberry.ID
    project: str | None
    name: str | None
    run_number: Long | None
    status: str | None
    started_at: str | None
    ended_at: str | None
    experiment: strawberry.ID | None
    environment: strawberry.ID
    section: str = strawberry.field(description="Where it was recorded: packages, frameworks...")
    recorded_as: str = strawberry.field(description="The package name as recorded.")
    version: str

    @classmethod
    def of(cls, found: Mapping[str, Any]) -> RunWithPackage:
        experiment = found.get("experiment")
        return cls(
            id=strawberry.ID(found["id"]),
            project=as_text(found.get("project")),
            name=as_text(found.get("name")),
            run_number=as_long(found.get("run_number")),
            status=as_text(found.get("status")),
            started_at=as_text(found.get("started_at")),
            ended_at=as_text(found.get("ended_at")),
            experiment=strawberry.ID(experiment) if experiment else None,
            environment=strawberry.ID(found["environment"]),
            **picked(found, "section", "recorded_as", "version"),
        )


@strawberry.type(description="The runs that ran with a package (at a version).")
class RunsWithPackage:
    package: str
    version: str | None
    project: str | None
    runs: list[RunWithPackage] = strawberry.field(description="Oldest first.")
    truncated: bool

    @classmethod
    def of(cls, found: Mapping[str, Any]) -> RunsWithPackage:
        runs = [RunWithPackage.of(r) for r in found["runs"]]
        return cls(**picked(found, "package", "version", "project", "truncated"), runs=runs)


def _questions(ctx: GraphContext) -> BestAndEnvironments:
    return ctx.services.best_and_environments()


@strawberry.type
class BestEnvQuery:
    @field(
        description="The best version of a model by an evaluation metric on ONE evaluation set "
        "(dataset versions + suite), the previous best, the delta and the diff of their "
        "upstream chains. `model` is a model id, or a name with `project`. When the metric was "
        "recorded on several sets and `datasets`/`suite` do not pick one, `ambiguous` is true "
        "and `evaluationSets` lists them: values of different sets are never compared."
    )
    def best_model_version(
        self,
        info: Info,
        model: str,
        metric: str,
        project: str | None = None,
        datasets: list[strawberry.ID] | None = None,
        suite: str | None = None,
        higher_is_better: bool = False,
    ) -> BestModelVersion | None:
        ctx = info.context
        found = _questions(ctx).best(
            model,
            metric,
            ctx.scope,
            project=project,
            datasets=[str(d) for d in datasets or ()],
            suite=suite,
            higher_is_better=higher_is_better,
        )
        if found is None:
            raise missing(model)
        return BestModelVersion.of(found)

    @field(
        description="Added, removed and changed packages, frameworks, libraries, drivers and "
        "system settings from environment snapshot `a` to `b`, and step by step along the "
        "BASED_ON chain between them when there is one."
    )
    def environment_diff(
        self, info: Info, a: strawberry.ID, b: strawberry.ID
    ) -> EnvironmentDiff | None:
        ctx = info.context
        found = _questions(ctx).env_diff(str(a), str(b), ctx.scope)
        return EnvironmentDiff.of(found)

    @field(
        description="The runs whose environment recorded `package` (packages, frameworks, "
        "parallel or compute libraries; name case and -/_ insensitive), at `version` when "
        "given, oldest first; limit defaults to 100 (max 1000)."
    )
    def runs_with_package(
        self,
        info: Info,
        package: str,
        version: str | None = None,
        project: str | None = None,
        limit: int | None = None,
    ) -> RunsWithPackage:
        ctx, size = info.context, bounded("limit", limit, RUNS_WITH_DEFAULT, RUNS_WITH_MAX)
        found = _questions(ctx).runs_with(package, version, ctx.scope, project=project, limit=size)
        return RunsWithPackage.of(found)
