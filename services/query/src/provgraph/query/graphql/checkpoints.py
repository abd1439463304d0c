"""`checkpointStages`: a run's checkpoints compared stage by stage
(`recipes/checkpoint_stages.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import strawberry
from strawberry.scalars import JSON

from provgraph.query.graphql.context import Info
from provgraph.query.graphql.fields import Long, field


@strawberry.type(description="A metric saved with a checkpoint (`checkpoint.saved` metrics).")
class SavedMetric:
    name: str
    value: JSON | None


@strawberry.type(
    description="One metric of one evaluation of a checkpoint (`checkpoint.evaluated`), with "
    "its change from the previous checkpoint that has a value of it on the same evaluation set."
)
class StageResult:
    checkpoint: strawberry.ID
    step: Long | None
    evaluation: strawberry.ID
    suite: str | None
    suite_version: str | None
    evaluation_set: list[strawberry.ID] = strawberry.field(
        description="The evaluation dataset versions it used, by id."
    )
    passed: bool | None
    evaluated_at: str | None
    metric: str | None = strawberry.field(
        description="Null for an evaluation that recorded no metric."
    )
    value: JSON | None
    previous_checkpoint: strawberry.ID | None = strawberry.field(
        description="The previous checkpoint with a value on the same evaluation set."
    )
    previous_step: Long | None
    previous_value: JSON | None
    change: float | None = strawberry.field(
        description="value - previousValue; null without a previous value or for non-numbers."
    )


@strawberry.type(description="One checkpoint of the run: a stage.")
class CheckpointStage:
    id: strawberry.ID
    step: Long | None
    saved_at: str | None
    status: str | None
    metrics: list[SavedMetric]
    evaluations: int = strawberry.field(description="How many evaluations it has (`results`).")


@strawberry.type(description="A run's checkpoints in step order, compared stage by stage.")
class CheckpointStages:
    run: strawberry.ID
    metric: str | None
    total: int = strawberry.field(description="How many live checkpoints the run saved.")
    limit: int = strawberry.field(description="The most checkpoints one answer reads.")
    truncated: bool = strawberry.field(
        description="True when the run has more than `limit`: the latest steps are kept."
    )
    checkpoints: list[CheckpointStage]
    results: list[StageResult] = strawberry.field(
        description="Each evaluation metric of each checkpoint, in step order."
    )


def stages_of(answer: Mapping[str, Any]) -> CheckpointStages:
    """The typed answer of `recipes.checkpoint_stages.CheckpointStages.stages`."""
    return CheckpointStages(
        **{k: v for k, v in answer.items() if k not in ("checkpoints", "results")},
        checkpoints=[
            CheckpointStage(
                **{k: v for k, v in c.items() if k != "metrics"},
                metrics=[SavedMetric(**m) for m in c["metrics"]],
            )
            for c in answer["checkpoints"]
        ],
        results=[StageResult(**r) for r in answer["results"]],
    )


@strawberry.type
class CheckpointsQuery:
    @field(
        description="A run's checkpoints in step order (at most the service's bound, the "
        "latest steps): each with its step, when it was saved and the metrics saved with it; "
        "and each metric of their evaluations (`checkpoint.evaluated`: suite, evaluation set, "
        "passed) with its change from the previous checkpoint that has a value on the same "
        "evaluation set (two sets are never compared). `metric` keeps one metric; "
        "one no checkpoint records is `invalid_argument`."
    )
    def checkpoint_stages(
        self, info: Info, run: strawberry.ID, metric: str | None = None
    ) -> CheckpointStages:
        ctx = info.context
        service = ctx.services.checkpoint_stages()
        return stages_of(service.stages(str(run), ctx.scope, metric))
