"""Event models, one module per area of the training lifecycle."""

from provgraph.schemas.envelope import Event
from provgraph.schemas.events.checkpoint import (
    CheckpointDeleted,
    CheckpointEvaluated,
    CheckpointSaved,
    CheckpointSavedV1,
    CheckpointSavedV2,
    upcast_checkpoint_saved_v1,
    upcast_checkpoint_saved_v2,
)
from provgraph.schemas.events.data import DatasetRegistered, DatasetVersionCreated
from provgraph.schemas.events.deployment import (
    DeploymentCreated,
    DeploymentFeedbackRecorded,
    DeploymentRetired,
    DeploymentUpdated,
)
from provgraph.schemas.events.environment import EnvironmentSnapshotRecorded
from provgraph.schemas.events.experiment import (
    ExperimentCreated,
    RunStarted,
    RunStartedV1,
    upcast_run_started_v1,
)
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
from provgraph.schemas.events.policy import (
    ProjectPolicySet,
    ProjectPolicySetV1,
    ProjectPolicySetV2,
    upcast_policy_set_v1,
    upcast_policy_set_v2,
)
from provgraph.schemas.events.run import (
    RunAborted,
    RunCompleted,
    RunCompletedV1,
    RunFailed,
    RunFailedV1,
    RunMetricsLogged,
    RunResumed,
    upcast_to_v2,
)
from provgraph.schemas.events.tokens import TokenIssued, TokenRevoked

EVENT_MODELS: tuple[type[Event], ...] = (
    DatasetRegistered,
    DatasetVersionCreated,
    EnvironmentSnapshotRecorded,
    ExperimentCreated,
    RunStartedV1,
    RunStarted,
    RunMetricsLogged,
    RunCompletedV1,
    RunCompleted,
    RunFailedV1,
    RunFailed,
    RunAborted,
    RunResumed,
    CheckpointSavedV1,
    CheckpointSavedV2,
    CheckpointSaved,
    CheckpointDeleted,
    CheckpointEvaluated,
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
    ProjectPolicySetV1,
    ProjectPolicySetV2,
    ProjectPolicySet,
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
    "CheckpointEvaluated",
    "CheckpointSaved",
    "CheckpointSavedV1",
    "CheckpointSavedV2",
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
    "ProjectPolicySet",
    "ProjectPolicySetV1",
    "ProjectPolicySetV2",
    "RunAborted",
    "RunCompleted",
    "RunCompletedV1",
    "RunFailed",
    "RunFailedV1",
    "RunMetricsLogged",
    "RunResumed",
    "RunStarted",
    "RunStartedV1",
    "TokenIssued",
    "TokenRevoked",
    "upcast_checkpoint_saved_v1",
    "upcast_checkpoint_saved_v2",
    "upcast_policy_set_v1",
    "upcast_policy_set_v2",
    "upcast_run_started_v1",
    "upcast_to_v2",
]
