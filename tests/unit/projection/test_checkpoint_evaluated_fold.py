"""`checkpoint.evaluated`, folded: an Evaluation node EVALUATED -> the checkpoint and USED ->
its dataset versions, as a model version's evaluation; it counts for no model version's
"evaluation before approval" rule."""

from __future__ import annotations

import uuid

import pytest
from support.record_policy import approved, logged, make, model_version, policy

from provgraph.ingest.projection.discipline import RecordFacts, judge
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import (
    CheckpointEvaluated,
    CheckpointSaved,
    ModelVersionRegistered,
    checkpoint_id,
    dataset_version_id,
)
from provgraph.schemas.events.checkpoint import CheckpointEvaluatedPayload, CheckpointSavedPayload
from provgraph.schemas.events.model import ModelVersionRegisteredPayload
from provgraph.schemas.records import RecordKind

pytestmark = pytest.mark.unit

P = "vision"
RUN = "r-ckpt"
CHECKPOINT = checkpoint_id(RUN, 2000)
EVAL_SET = (dataset_version_id(P, "eval-suite", "v1"), dataset_version_id(P, "heldout", "v2"))
EVALUATION = uuid.UUID("7c0e5b2a-1d2f-4e3a-9b8c-6d5e4f3a2b1c")


def saved() -> CheckpointSaved:
    payload = CheckpointSavedPayload(run_id=RUN, step=2000, uri="s3://b/ckpt/2000")
    return make(CheckpointSaved, P, payload)  # type: ignore[return-value]


def evaluated_checkpoint() -> CheckpointEvaluated:
    payload = CheckpointEvaluatedPayload(
        evaluation_id=EVALUATION,
        checkpoint=CHECKPOINT,
        suite="eval-suite",
        suite_version="1",
        dataset_versions=EVAL_SET,
        metrics={"accuracy": 0.52},
        passed=False,
    )
    return make(CheckpointEvaluated, P, payload)  # type: ignore[return-value]


def test_an_evaluated_checkpoint_is_linked_like_an_evaluated_model_version() -> None:
    for events in ([saved(), evaluated_checkpoint()], [evaluated_checkpoint(), saved()]):
        graph = MemoryGraph().fold(events)
        me = f"evaluation:{EVALUATION}"
        label, props = graph.nodes[me]
        assert label == "Evaluation"
        assert (props["suite"], props["suite_version"], props["passed"]) == (
            "eval-suite",
            "1",
            False,
        )
        assert props["metric.accuracy"] == 0.52
        assert graph.nodes[CHECKPOINT][0] == "Checkpoint"
        edges = {(src, rel, dst) for (src, rel, dst, _key) in graph.edges}
        assert (me, "EVALUATED", CHECKPOINT) in edges
        assert {(me, "USED", d) for d in EVAL_SET} <= edges
        assert not any(rel == "GENERATED_BY" for (src, rel, _d) in edges if src == me)


def test_a_checkpoint_evaluation_does_not_count_as_the_model_versions_evaluation() -> None:
    register = make(
        ModelVersionRegistered,
        P,
        ModelVersionRegisteredPayload(name="tiny-lm", version="1.0", checkpoint=CHECKPOINT),
    )
    assert register.subject == model_version(P)
    rule = policy(P, {RecordKind.MODEL_VERSION: ("evaluation",)})
    events = [rule, saved(), register, evaluated_checkpoint(), approved(P)]
    found = judge(logged(events), RecordFacts(), by_log=True)
    assert [v is None for v in found] == [True, True, True, True, False]
    assert found[-1] is not None and "evaluation" in str(found[-1])
