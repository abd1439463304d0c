"""Lazy references between the type modules (a run names its checkpoints, a checkpoint its run).

Each alias resolves when the schema is built, so the modules never import each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import strawberry

if TYPE_CHECKING:
    from provgraph.query.graphql.data import Dataset, DatasetVersion
    from provgraph.query.graphql.models import Deployment, Evaluation, Model, ModelVersion
    from provgraph.query.graphql.runs import Checkpoint, Environment, Experiment, Run

_DATA = "provgraph.query.graphql.data"
_RUNS = "provgraph.query.graphql.runs"
_MODELS = "provgraph.query.graphql.models"

DatasetRef = Annotated["Dataset", strawberry.lazy(_DATA)]
DatasetVersionRef = Annotated["DatasetVersion", strawberry.lazy(_DATA)]
ExperimentRef = Annotated["Experiment", strawberry.lazy(_RUNS)]
RunRef = Annotated["Run", strawberry.lazy(_RUNS)]
CheckpointRef = Annotated["Checkpoint", strawberry.lazy(_RUNS)]
EnvironmentRef = Annotated["Environment", strawberry.lazy(_RUNS)]
ModelRef = Annotated["Model", strawberry.lazy(_MODELS)]
ModelVersionRef = Annotated["ModelVersion", strawberry.lazy(_MODELS)]
EvaluationRef = Annotated["Evaluation", strawberry.lazy(_MODELS)]
DeploymentRef = Annotated["Deployment", strawberry.lazy(_MODELS)]
