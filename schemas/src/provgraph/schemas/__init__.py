"""The event contract: typed ids, event models, the registry, validation and JSON Schema.

The graph model (labels, relationship types, constraints) lives in `provgraph.schemas.graph`.
"""

from provgraph.schemas.envelope import (
    ContractModel,
    Event,
    Payload,
    event_hash,
    kafka_key,
    to_json_bytes,
)
from provgraph.schemas.errors import (
    BatchError,
    BatchTooLargeError,
    ContractError,
    ErrorCode,
    EventTooLargeError,
    EventValidationError,
    FieldError,
    FutureSchemaVersionError,
    InvalidIdError,
    MalformedEventError,
    RegistryError,
    SubjectMismatchError,
    UnknownEventTypeError,
)
from provgraph.schemas.events import *  # noqa: F403  (every event model, see its __all__)
from provgraph.schemas.events import __all__ as _event_names
from provgraph.schemas.events.run import MAX_METRIC_POINTS
from provgraph.schemas.ids import (
    IdKind,
    ParsedId,
    checkpoint_id,
    dataset_id,
    dataset_version_id,
    deployment_id,
    environment_id,
    evaluation_id,
    experiment_id,
    explicit_checkpoint_id,
    model_id,
    model_version_id,
    parse_id,
    principal_id,
    project_id,
    run_id,
)
from provgraph.schemas.registry import REGISTRY, Registry, Upcaster
from provgraph.schemas.validation import (
    MAX_BATCH_EVENTS,
    MAX_EVENT_BYTES,
    parse_event,
    validate_batch,
)

__all__ = [
    "event_hash",
    *_event_names,
    "MAX_BATCH_EVENTS",
    "MAX_EVENT_BYTES",
    "MAX_METRIC_POINTS",
    "REGISTRY",
    "BatchError",
    "BatchTooLargeError",
    "ContractError",
    "ContractModel",
    "ErrorCode",
    "Event",
    "EventTooLargeError",
    "EventValidationError",
    "FieldError",
    "FutureSchemaVersionError",
    "IdKind",
    "InvalidIdError",
    "MalformedEventError",
    "ParsedId",
    "Payload",
    "Registry",
    "RegistryError",
    "SubjectMismatchError",
    "UnknownEventTypeError",
    "Upcaster",
    "checkpoint_id",
    "dataset_id",
    "dataset_version_id",
    "deployment_id",
    "environment_id",
    "evaluation_id",
    "experiment_id",
    "explicit_checkpoint_id",
    "kafka_key",
    "model_id",
    "model_version_id",
    "parse_event",
    "parse_id",
    "principal_id",
    "project_id",
    "run_id",
    "to_json_bytes",
    "validate_batch",
]
