"""The fold's semantics, one rule per test, against the in-memory graph."""

from __future__ import annotations

import glob
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

from provgraph.ingest.projection import project_event
from provgraph.ingest.projection.memory import MemoryGraph
from provgraph.schemas import (
    CheckpointSaved,
    DeploymentCreated,
    DeploymentUpdated,
    EntityDeleted,
    Event,
    Payload,
    RunCompleted,
    RunFailed,
    RunMetricsLogged,
    RunStarted,
    parse_event,
)
from provgraph.schemas.events.checkpoint import CheckpointSavedPayload
from provgraph.schemas.events.deployment import (
    DeploymentCreatedPayload,
    DeploymentUpdatedPayload,
    ServedModel,
)
from provgraph.schemas.events.experiment import RunInput, RunStartedPayload
from provgraph.schemas.events.governance import EntityDeletedPayload
from provgraph.schemas.events.run import (
    MetricPoint,
    RunCompletedPayload,
    RunError,
    RunFailedPayload,
    RunMetricsLoggedPayload,
)

T0 = datetime(2024, 5, 1, tzinfo=UTC)
EXAMPLES = Path(__file__).parents[3] / "schemas" / "examples" / "valid"
DV = "dataset:p/web@v1"
MV1, MV2 = "model:p/m@1", "model:p/m@2"


def ev(cls: type[Event], payload: Payload, minute: int = 0, n: int = 1) -> Event:
    return cls.create(
        project="p",
        producer="https://t/1",
        actor="user:t",
        payload=payload,
        occurred_at=T0 + timedelta(minutes=minute),
        event_id=UUID(int=n),
    )


def started(minute: int = 0, n: int = 1) -> Event:
    payload = RunStartedPayload(
        run_id="r1", params={"lr": 0.1, "opt": {"name": "adam"}},
        inputs=(RunInput(dataset_version=DV, role="train"),),
    )  # fmt: skip
    return ev(RunStarted, payload, minute, n)


def completed(minute: int, n: int) -> Event:
    return ev(RunCompleted, RunCompletedPayload(run_id="r1", conclusion=f"c{n}"), minute, n)


def failed(minute: int, n: int) -> Event:
    error = RunError(type="E", message="m")
    return ev(RunFailed, RunFailedPayload(run_id="r1", conclusion="f", error=error), minute, n)


def fold(*events: Event) -> MemoryGraph:
    return MemoryGraph().fold(events)


def node(graph: MemoryGraph, node_id: str) -> dict[str, Any]:
    return graph.nodes[node_id][1]


def test_every_example_projects_and_every_node_carries_the_common_properties() -> None:
    events = [parse_event(Path(f).read_bytes()) for f in sorted(glob.glob(f"{EXAMPLES}/*.json"))]
    graph = fold(*events)
    for _label, props in graph.nodes.values():
        assert {"id", "project", "first_seen_at", "last_event_at", "placeholder"} <= props.keys()
    assert len(graph.events) == len(events)


def test_the_same_event_twice_is_a_no_op() -> None:
    once, twice = fold(started(), completed(5, 2)), fold(started(), completed(5, 2), started())
    assert once.canonical() == twice.canonical()
    assert MemoryGraph().apply(project_event(started())) is True


def test_completed_before_started_gives_the_same_graph() -> None:
    assert (
        fold(started(), completed(5, 2)).canonical() == fold(completed(5, 2), started()).canonical()
    )


def test_status_only_moves_forward_and_end_is_the_latest() -> None:
    graph = fold(completed(9, 3), failed(5, 2), started())
    run = node(graph, "run:r1")
    assert run["status"] == "completed"
    assert run["ended_at"].startswith("2024-05-01T00:09")
    assert run["started_at"].startswith("2024-05-01T00:00")


def test_start_is_the_earliest_of_duplicated_starts() -> None:
    graph = fold(started(7, 1), started(3, 2))
    assert node(graph, "run:r1")["started_at"].startswith("2024-05-01T00:03")


def test_last_writer_wins_by_time_then_event_id() -> None:
    older, newer = completed(5, 2), completed(6, 3)
    assert node(fold(newer, older), "run:r1")["conclusion"] == "c3"
    tie_a, tie_b = completed(5, 7), completed(5, 8)  # same time: the larger event_id wins
    assert node(fold(tie_b, tie_a), "run:r1")["conclusion"] == "c8"


def test_checkpoint_before_its_run_makes_a_placeholder_run_filled_in_later() -> None:
    payload = CheckpointSavedPayload(run_id="r1", step=10, uri="s3://b/c")
    saved = ev(CheckpointSaved, payload, 1, 5)
    graph = fold(saved)
    assert node(graph, "run:r1")["placeholder"] is True
    assert node(graph, "checkpoint:r1/10")["placeholder"] is False
    filled = fold(saved, started())
    assert node(filled, "run:r1")["placeholder"] is False
    assert filled.canonical() == fold(started(), saved).canonical()


def test_a_referenced_dataset_version_is_a_placeholder_with_its_label_and_project() -> None:
    graph = fold(started())
    label, props = graph.nodes[DV]
    assert (label.value, props["placeholder"], props["project"]) == ("DatasetVersion", True, "p")
    edges = [k for k in graph.edges if k[1] == "USED"]
    assert edges == [("run:r1", "USED", DV, (("role", "train"),))]


def test_delete_is_soft_and_later_events_do_not_bring_the_entity_back() -> None:
    delete = ev(EntityDeleted, EntityDeletedPayload(entity="run:r1", reason="gdpr"), 5, 9)
    graph = fold(started(), delete, completed(8, 2))
    run = node(graph, "run:r1")
    assert run["deleted_at"].startswith("2024-05-01T00:05")
    assert run["conclusion"] == "c2"  # folded, recorded in history ...
    assert "run:r1" in graph.events[str(UUID(int=2))].touched  # ... and traceable to its event


def test_params_are_json_plus_flattened_scalars() -> None:
    run = node(fold(started()), "run:r1")
    assert run["params_json"] == '{"lr":0.1,"opt":{"name":"adam"}}'
    assert (run["param.lr"], run["param.opt.name"]) == (0.1, "adam")


def test_metrics_keep_the_last_value_per_metric_by_step() -> None:
    def logged(step: int, value: float, n: int) -> Event:
        points = (MetricPoint(name="loss", step=step, value=value),)
        return ev(RunMetricsLogged, RunMetricsLoggedPayload(run_id="r1", points=points), n, n)

    run = node(fold(logged(200, 0.5, 1), logged(100, 0.9, 2)), "run:r1")
    assert (run["metric.loss"], run["metric_step.loss"]) == (0.5, 200)


def test_an_older_serves_set_does_not_replace_a_newer_one() -> None:
    def created(n: int) -> Event:
        serves = (ServedModel(model_version=MV1),)
        payload = DeploymentCreatedPayload(
            name="d", endpoint="https://x/y", environment="prod", serves=serves
        )
        return ev(DeploymentCreated, payload, 1, n)

    update = DeploymentUpdatedPayload(name="d", serves=(ServedModel(model_version=MV2),))
    newer = ev(DeploymentUpdated, update, 5, 2)
    for order in ((created(1), newer), (newer, created(1))):
        lines = [e for e in fold(*order).canonical().edges if "SERVES" in e]
        assert lines == [
            'deployment:p/d -[SERVES {"first_seen_at":"2024-05-01T00:05:00.000000Z",'
            f'"traffic_share":1.0}}]-> {MV2}'
        ]


def test_an_edge_is_first_seen_at_its_earliest_statement_in_any_order() -> None:
    def started(n: int, minute: int) -> Event:
        payload = RunStartedPayload(
            run_id="r1", inputs=(RunInput(dataset_version=DV, role="train"),)
        )
        return ev(RunStarted, payload, minute, n)

    for order in ((started(1, 3), started(2, 9)), (started(2, 9), started(1, 3))):
        graph = fold(*order)
        used = [props for key, props in graph.edges.items() if key[1] == "USED"]
        assert [props["first_seen_at"] for props in used] == ["2024-05-01T00:03:00.000000Z"]
