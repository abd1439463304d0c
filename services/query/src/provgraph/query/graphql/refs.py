"""Lazy references between the type modules (a run names its checkpoints, a checkpoint its run).

The node types refer to one another in a cycle, so their modules cannot import each other:
each alias names its type and module, and strawberry resolves it when the schema is built.
The type checker sees every reference as the `Node` interface that all of them implement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import strawberry

if TYPE_CHECKING:
    from provgraph.query.graphql.node import Node as Checkpoint
    from provgraph.query.graphql.node import Node as Dataset
    from provgraph.query.graphql.node import Node as DatasetVersion
    from provgraph.query.graphql.node import Node as Deployment
    from provgraph.query.graphql.node import Node as Environment
    from provgraph.query.graphql.node import Node as Evaluation
    from provgraph.query.graphql.node import Node as Experiment
    from provgraph.query.graphql.node import Node as Model
    from provgraph.query.graphql.node import Node as ModelVersion
    from provgraph.query.graphql.node import Node as Run

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
