"""The read of `checkpoints RUN`: the `CheckpointReads` port, and `CheckpointReader`, its adapter
over Neo4j with its Cypher: a run's live checkpoints (at most a bound of them, the latest steps),
each with the metrics saved with it and its evaluations (`checkpoint.evaluated`), each
evaluation with the dataset versions it used, in one round trip."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from provgraph.query.read.convert import scope_params
from provgraph.query.read.fragments import live, visible
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import PROJECT, dotted

METRIC_PREFIX = dotted("metric", "")
"""The flattened metrics of a checkpoint or an evaluation (`metric.<name>`, `storage.with_json`)."""

# The live, readable run $id; how many live, readable checkpoints it generated; the $limit of
# them with the highest steps, each with its live, readable evaluations and their data.
RUN_CHECKPOINTS = f"""
MATCH (r:{Label.RUN}:{Label.ENTITY} {{id: $id}})
WHERE {visible("r")} AND {live("r")}
RETURN r.id AS run, r.{PROJECT} AS project,
  COUNT {{
    MATCH (r)<-[:{Rel.GENERATED_BY}]-(c:{Label.CHECKPOINT}:{Label.ENTITY})
    WHERE {visible("c")} AND {live("c")} }} AS total,
  COLLECT {{
    MATCH (r)<-[:{Rel.GENERATED_BY}]-(c:{Label.CHECKPOINT}:{Label.ENTITY})
    WHERE {visible("c")} AND {live("c")}
    WITH c ORDER BY coalesce(c.step, -1) DESC, c.id DESC LIMIT $limit
    RETURN {{props: properties(c), evaluations: COLLECT {{
      MATCH (c)<-[:{Rel.EVALUATED}]-(e:{Label.EVALUATION}:{Label.ENTITY})
      WHERE {visible("e")} AND {live("e")}
      WITH e ORDER BY e.evaluated_at, e.id
      RETURN {{props: properties(e), datasets: COLLECT {{
        MATCH (e)-[:{Rel.USED}]->(d:{Label.DATASET_VERSION}:{Label.ENTITY})
        WHERE {visible("d")}
        RETURN d.id ORDER BY d.id }} }} }} }} }} AS checkpoints
"""


@dataclass(frozen=True)
class CheckpointEvaluation:
    """One evaluation of a checkpoint: its suite, the dataset versions it used (readable ones,
    by id), its metrics (flattened names) and verdict."""

    id: str
    suite: str | None
    suite_version: str | None
    datasets: tuple[str, ...]
    metrics: dict[str, Any]
    passed: bool | None
    evaluated_at: str | None


@dataclass(frozen=True)
class SavedCheckpoint:
    """A checkpoint of the run: its step, when it was saved, its status, the metrics saved
    with it and its evaluations (the earliest first)."""

    id: str
    step: int | None
    saved_at: str | None
    status: str | None
    metrics: dict[str, Any]
    evaluations: tuple[CheckpointEvaluation, ...]


@dataclass(frozen=True)
class RunCheckpoints:
    """A run's checkpoints in step order: at most the bound asked for, the latest steps;
    `total` counts them all; `project` is the run's (whose metric aliases apply)."""

    run: str
    project: str | None
    total: int
    checkpoints: tuple[SavedCheckpoint, ...]


class CheckpointReads(Protocol):
    """What `recipes.checkpoint_stages.CheckpointStages` reads, in the caller's `Scope` (a run
    of an unreadable project is a missing one)."""

    def run_checkpoints(self, run: str, scope: Scope, limit: int) -> RunCheckpoints | None:
        """The live checkpoints of `run` (at most `limit`: those of the highest steps) with
        their evaluations; None when the run is missing, deleted or not readable."""


def metrics_of(props: Mapping[str, Any]) -> dict[str, Any]:
    """The flattened metrics stored on a node, by name (`metric.eval/acc` is `eval/acc`)."""
    n = len(METRIC_PREFIX)
    return {k[n:]: props[k] for k in sorted(props) if k.startswith(METRIC_PREFIX)}


def evaluation_of(props: Mapping[str, Any], datasets: list[str]) -> CheckpointEvaluation:
    """The evaluation stored as `props`, with the dataset versions it used."""
    return CheckpointEvaluation(
        id=str(props["id"]),
        suite=props.get("suite"),
        suite_version=props.get("suite_version"),
        datasets=tuple(sorted(datasets)),
        metrics=metrics_of(props),
        passed=props.get("passed"),
        evaluated_at=props.get("evaluated_at"),
    )


def checkpoint_of(
    props: Mapping[str, Any], evaluations: list[CheckpointEvaluation]
) -> SavedCheckpoint:
    """The checkpoint stored as `props`, with its evaluations."""
    step = props.get("step")
    return SavedCheckpoint(
        id=str(props["id"]),
        step=None if step is None else int(step),
        saved_at=props.get("saved_at"),
        status=props.get("status"),
        metrics=metrics_of(props),
        evaluations=tuple(evaluations),
    )


def in_step_order(checkpoints: list[SavedCheckpoint]) -> tuple[SavedCheckpoint, ...]:
    """Checkpoints by step (those without a step last), then id."""
    return tuple(sorted(checkpoints, key=lambda c: (c.step is None, c.step or 0, c.id)))


class CheckpointReader:
    """`CheckpointReads` over Neo4j."""

    def __init__(self, session: ReadSession) -> None:
        self._session = session

    def run_checkpoints(self, run: str, scope: Scope, limit: int) -> RunCheckpoints | None:
        """The run's checkpoints, or None."""
        params = {**scope_params(scope), "id": run, "limit": limit}
        found = self._session.run(RUN_CHECKPOINTS, params)
        if not found:
            return None
        (record,) = found
        checkpoints = [
            checkpoint_of(
                c["props"], [evaluation_of(e["props"], e["datasets"]) for e in c["evaluations"]]
            )
            for c in record["checkpoints"]
        ]
        return RunCheckpoints(
            record["run"], record["project"], int(record["total"]), in_step_order(checkpoints)
        )
