"""Event models, one module per area of the training lifecycle."""

from provgraph.schemas.envelope import Event
from provgraph.schemas.events.checkpoint import (
    CheckpointDeleted,
    CheckpointSaved,
    CheckpointSavedV1,
    upcast_checkpoint_saved_v1,
)
from provgraph.schemas.events.data import DatasetRegistered, DatasetVersionCreated
from provgraph.schemas.events.deployment import (
    DeploymentCreated,
    DeploymentFeedbackRecorded,
    DeploymentRetired,
    DeploymentUpdated,
)
from provgraph.schemas.events.environment import EnvironmentSnapshotRecorded
from provgraph.schemas.events.experiment import ExperimentCreated, RunStarted
from provgraph.schemas.events.governance import AccessGranted, AccessRevoked, EntityDeleted
from provgraph.schemas.events.model import (
    ModelVersionEvaluated,
    ModelVersionRegistered,
    ModelVersionStatusChanged,
)
from provgraph.schemas.events.openlineage import (
    OpenLineageDatasetEvent,
    OpenLineageJobEvent,
    OpenLineageRunEvent,
)
from provgraph.schemas.events.run import (
    RunAborted,
    RunCompleted,
    RunFailed,
    RunMetricsLogged,
    RunResumed,
)
from provgraph.schemas.events.tokens import TokenIssued, TokenRevoked

EVENT_MODELS: tuple[type[Event], ...] = (
    DatasetRegistered,
    DatasetVersionCreated,
    EnvironmentSnapshotRecorded,
    ExperimentCreated,
    RunStarted,
    RunMetricsLogged,
    RunCompleted,
    RunFailed,
    RunAborted,
    RunResumed,
    CheckpointSavedV1,
    CheckpointSaved,
    CheckpointDeleted,
    ModelVersionRegistered,
    ModelVersionEvaluated,
    ModelVersionStatusChanged,
    DeploymentCreated,
    DeploymentUpdated,
    DeploymentRetired,
    DeploymentFeedbackRecorded,
    AccessGranted,
    AccessRevoked,
    EntityDeleted,
    TokenIssued,
    TokenRevoked,
    OpenLineageRunEvent,
    OpenLineageJobEvent,
    OpenLineageDatasetEvent,
)
"""Every event model ever published, historical versions included."""

__all__ = [
    "EVENT_MODELS",
    "AccessGranted",
    "AccessRevoked",
    "CheckpointDeleted",
    "CheckpointSaved",
    "CheckpointSavedV1",
    "DatasetRegistered",
    "DatasetVersionCreated",
    "DeploymentCreated",
    "DeploymentFeedbackRecorded",
    "DeploymentRetired",
    "DeploymentUpdated",
    "EntityDeleted",
    "EnvironmentSnapshotRecorded",
    "ExperimentCreated",
    "ModelVersionEvaluated",
    "ModelVersionRegistered",
    "ModelVersionStatusChanged",
    "OpenLineageDatasetEvent",
    "OpenLineageJobEvent",
    "OpenLineageRunEvent",
    "RunAborted",
    "RunCompleted",
    "RunFailed",
    "RunMetricsLogged",
    "RunResumed",
    "RunStarted",
    "TokenIssued",
    "TokenRevoked",
    "upcast_checkpoint_saved_v1",
]
