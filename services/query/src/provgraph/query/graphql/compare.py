"""`compare`: runs side by side, each checked against the run it should be compared with."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

import strawberry
from strawberry.scalars import JSON

from provgraph.query.graphql.briefs import ErrorBrief
from provgraph.query.graphql.context import Info
from provgraph.query.graphql.fields import Long, field
from provgraph.query.recipes.team_service import parse_instant
from provgraph.schemas.storage import format_time


@strawberry.enum(description="The kind of a setting that differs between two runs.")
class SettingKind(Enum):
    PARAM = "param"
    INPUT = "input"
    ENVIRONMENT = "environment"
    CODE = "code"
    BASE = "base"
    RESOURCES = "resources"


@strawberry.type(description="A metric definition: its source (final or last logged), split, name.")
class MetricDefinition:
    key: str = strawberry.field(description="`<source>:<name>`, e.g. `final:val/loss`.")
    source: str = strawberry.field(description="final (final_metrics) | last (last logged value)")
    name: str = strawberry.field(description="The metric's name as recorded (`val/loss`).")
    split: str | None = strawberry.field(description="The part before `/` (`val`), if any.")
    metric: str = strawberry.field(description="The part after `/` (`loss`).")


@strawberry.type(description="A run's value of one metric definition; a gap is a null value.")
class MetricCell:
    key: str
    value: float | None
    step: Long | None


@strawberry.type(description="A run parameter (dotted when nested) and its value.")
class ParamCell:
    name: str
    value: JSON | None


@strawberry.type(description="An input dataset version and its role.")
class ComparedInput:
    role: str
    dataset_version: strawberry.ID


@strawberry.type(description="An environment: its id and image reference.")
class ComparedEnvironment:
    id: strawberry.ID
    image: str | None


@strawberry.type(description="The code a run executed.")
class ComparedCode:
    repo: str | None
    commit: str | None
    dirty: bool | None
    entrypoint: str | None


@strawberry.type(description="What a run started from: a model version or a checkpoint.")
class ComparedBase:
    id: strawberry.ID
    type: str


@strawberry.type(description="A checkpoint a run resumed from, and the run that saved it.")
class ComparedResume:
    id: strawberry.ID
    step: Long | None
    run: strawberry.ID | None


@strawberry.type(description="The error a failed run recorded.")
class ComparedError(ErrorBrief):
    pass


@strawberry.type(description="One setting that differs from the comparison run.")
class SettingChange:
    kind: SettingKind
    name: str = strawberry.field(description="The param, `<role> <dataset>`, or the aspect.")
    before: JSON | None = strawberry.field(description="In the comparison run.")
    after: JSON | None = strawberry.field(description="In this run.")


@strawberry.type(description="A run checked against its comparison run.")
class RunCheck:
    against: strawberry.ID | None = strawberry.field(description="The comparison run, if any.")
    basis: str | None = strawberry.field(description="previous | baseline")
    changes: list[SettingChange]
    flagged: bool = strawberry.field(description="More than one setting differs.")
    unverifiable: list[str] = strawberry.field(description="What could not be compared.")


@strawberry.type(
    description="A dataset version a run trains on whose quality gates failed or were never "
    "recorded."
)
class DataGateFlag:
    dataset_version: strawberry.ID
    issue: str = strawberry.field(
        description="`no quality gates recorded` or `quality gates failed: <check names>`."
    )


@strawberry.type(description="One run of the comparison table.")
class ComparedRun:
    id: strawberry.ID
    number: Long | None
    name: str | None
    experiment: strawberry.ID | None
    status: str | None
    error: ComparedError | None
    conclusion: str | None
    conclusion_missing: bool = strawberry.field(description="Completed or failed, no conclusion.")
    abort_reason: str | None
    params: list[ParamCell] = strawberry.field(description="The table's params, in its order.")
    inputs: list[ComparedInput]
    environment: ComparedEnvironment | None
    code: ComparedCode | None
    base: ComparedBase | None
    resumed_from: list[ComparedResume]
    metrics: list[MetricCell] = strawberry.field(description="One cell per table metric.")
    started_at: str | None
    ended_at: str | None
    duration_s: float | None = strawberry.field(description="Ended minus started, seconds.")
    check: RunCheck
    data_gates: list[DataGateFlag] = strawberry.field(
        description="The train inputs whose quality gates failed or were never recorded."
    )


@strawberry.type(description="Runs side by side, and the one-change-at-a-time check.")
class Comparison:
    experiment: strawberry.ID | None
    basis: str = strawberry.field(description="previous (by number in the experiment) | baseline")
    baseline: strawberry.ID | None
    sort_by: str | None = strawberry.field(description="The metric key sorted by (`-`: desc).")
    truncated: bool = strawberry.field(description="The experiment had more runs than shown.")
    params: list[str] = strawberry.field(description="The params shown (differing, or all).")
    metrics: list[MetricDefinition]
    runs: list[ComparedRun]
    flagged: list[strawberry.ID] = strawberry.field(description="Runs whose check is flagged.")


@strawberry.enum(description="How changes of a numeric parameter are grouped.")
class EffectGrouping(Enum):
    VALUE = "value"
    FACTOR = "factor"


@strawberry.type(description="One pair of an effect: a run and the run it was checked against.")
class EffectPair:
    experiment: strawberry.ID | None
    before: strawberry.ID = strawberry.field(description="The earlier run (the comparison run).")
    after: strawberry.ID = strawberry.field(description="The run that made the change.")
    status: str | None = strawberry.field(description="The later run's status.")
    delta: float | None = strawberry.field(
        description="The later run's value minus the earlier's, when both finished with one."
    )
    started_at: str | None = strawberry.field(description="When the later run started.")


@strawberry.type(description="A failure of the later runs: the error type (or message).")
class EffectFailure:
    error: str
    count: int


@strawberry.type(description="What one kind of single change did, over its one-change pairs.")
class Effect:
    kind: SettingKind
    name: str = strawberry.field(description="The param, `<role> <dataset>`, or the aspect.")
    label: str = strawberry.field(description="The change as the table prints it.")
    before: JSON | None = strawberry.field(description="The old value (null by factor).")
    after: JSON | None = strawberry.field(description="The new value (null by factor).")
    factor: float | None = strawberry.field(description="new ÷ old, when grouped by factor.")
    pairs: int = strawberry.field(description="One-change pairs with this change.")
    measured: int = strawberry.field(description="Pairs where both runs have the metric.")
    mean_delta: float | None
    spread: float | None = strawberry.field(description="Standard deviation of the deltas.")
    min_delta: float | None
    max_delta: float | None
    failed: int = strawberry.field(description="Pairs whose later run failed.")
    running: int = strawberry.field(description="Pairs whose later run has not finished.")
    failures: list[EffectFailure]
    runs: list[EffectPair]


@strawberry.type(description="What worked: every one-change pair of a project, by change.")
class Effects:
    project: str
    metric: MetricDefinition
    since: str | None
    group_by: EffectGrouping
    runs_read: int = strawberry.field(description="Runs read (the latest, at most the limit).")
    truncated: bool = strawberry.field(description="The project had more runs than were read.")
    pairs: int = strawberry.field(description="Pairs counted: exactly one setting differs.")
    flagged_pairs: int = strawberry.field(description="Left out: more than one setting differs.")
    repeat_pairs: int = strawberry.field(description="Left out: no setting differs.")
    effects: list[Effect]


def effects_answer(answer: Mapping[str, Any]) -> Effects:
    """The typed answer of `Comparisons.effects`."""
    keep = ("project", "since", "runs_read", "truncated", "pairs", "flagged_pairs")
    return Effects(
        **{k: answer[k] for k in keep},
        repeat_pairs=answer["repeat_pairs"],
        metric=MetricDefinition(**answer["metric"]),
        group_by=EffectGrouping(answer["group_by"]),
        effects=[
            Effect(
                **{k: v for k, v in e.items() if k not in ("kind", "failures", "runs")},
                kind=SettingKind(e["kind"]),
                failures=[EffectFailure(**f) for f in e["failures"]],
                runs=[EffectPair(**r) for r in e["runs"]],
            )
            for e in answer["effects"]
        ],
    )


def _typed(cls: type[Any], value: Any) -> Any:
    return None if value is None else cls(**value)


def _change(c: Mapping[str, Any]) -> SettingChange:
    return SettingChange(
        kind=SettingKind(c["kind"]), name=c["name"], before=c["before"], after=c["after"]
    )


def _run(r: Mapping[str, Any]) -> ComparedRun:
    check = r["check"]
    code = r["code"]
    return ComparedRun(
        **{k: r[k] for k in ("id", "number", "name", "experiment", "status", "conclusion")},
        error=ComparedError.of(r["error"]),
        conclusion_missing=r["conclusion_missing"],
        abort_reason=r["abort_reason"],
        params=[ParamCell(**p) for p in r["params"]],
        inputs=[ComparedInput(**i) for i in r["inputs"]],
        environment=_typed(ComparedEnvironment, r["environment"]),
        code=None
        if code is None
        else ComparedCode(**{k: code.get(k) for k in ("repo", "commit", "dirty", "entrypoint")}),
        base=_typed(ComparedBase, r["base"]),
        resumed_from=[ComparedResume(**c) for c in r["resumed_from"]],
        metrics=[MetricCell(**m) for m in r["metrics"]],
        started_at=r["started_at"],
        ended_at=r["ended_at"],
        duration_s=r["duration_s"],
        check=RunCheck(**{**check, "changes": [_change(c) for c in check["changes"]]}),
        data_gates=[DataGateFlag(**f) for f in r["data_gates"]],
    )


def comparison(answer: Mapping[str, Any]) -> Comparison:
    """The typed answer of `Comparisons.compare`."""
    keep = ("experiment", "basis", "baseline", "sort_by", "truncated", "params", "flagged")
    return Comparison(
        **{k: answer[k] for k in keep},
        metrics=[MetricDefinition(**m) for m in answer["metrics"]],
        runs=[_run(r) for r in answer["runs"]],
    )


@strawberry.type
class CompareQuery:
    @field(
        description="The runs of an `experiment` (or the given `runs`) side by side: status with "
        "error and conclusion, the params that differ (all with `all`), inputs by role, "
        "environment, code, base, resumes, each metric definition's value (a gap is null) and "
        "duration; each run checked against the previous run of its experiment by number (or "
        "`baseline`), flagged when more than one setting differs. `sortBy`: a metric key or "
        "name, `-` first for descending."
    )
    def compare(
        self,
        info: Info,
        experiment: strawberry.ID | None = None,
        runs: list[strawberry.ID] | None = None,
        all: bool = False,
        baseline: strawberry.ID | None = None,
        sort_by: str | None = None,
    ) -> Comparison:
        ctx = info.context
        service = ctx.services.comparisons()
        answer = service.compare(
            ctx.scope,
            experiment=None if experiment is None else str(experiment),
            runs=[str(r) for r in runs or ()],
            everything=all,
            baseline=None if baseline is None else str(baseline),
            sort_by=sort_by,
        )
        return comparison(answer)

    @field(
        description="What worked in `project`: every pair of runs of its experiments where "
        "exactly one setting differs (a run and the previous run of its experiment by number, "
        "as `compare` checks them), grouped by what changed, with the number of pairs, the mean "
        "and spread of `metric`'s change (a key such as `final:val/loss`, or a name) and the "
        "later runs' failures. Pairs with more than one change never count. `since`: an ISO "
        "8601 time, pairs whose later run started at or after it."
    )
    def effects(
        self,
        info: Info,
        project: str,
        metric: str,
        since: str | None = None,
        group_by: EffectGrouping = EffectGrouping.VALUE,
    ) -> Effects:
        ctx = info.context
        service = ctx.services.comparisons()
        stamp = format_time(parse_instant(since, "since")) if since is not None else None
        answer = service.effects(
            ctx.scope,
            project=project,
            metric=metric,
            since=stamp,
            group_by=group_by.value,
        )
        return effects_answer(answer)
