"""Argument checks shared by the root fields: sizes within settings, timestamps normalised."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import Enum

import strawberry

from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import Direction
from provgraph.query.settings import QuerySettings
from provgraph.schemas.graph import Label
from provgraph.schemas.storage import format_time

# Registered once, in place: resolvers annotate with the read model's own Direction.
strawberry.enum(Direction, description="UPSTREAM: towards sources (outgoing edges).")


@strawberry.enum(description="The node types of the lineage graph.")
class NodeType(Enum):
    DATASET = Label.DATASET.value
    DATASET_VERSION = Label.DATASET_VERSION.value
    EXPERIMENT = Label.EXPERIMENT.value
    RUN = Label.RUN.value
    CHECKPOINT = Label.CHECKPOINT.value
    MODEL = Label.MODEL.value
    MODEL_VERSION = Label.MODEL_VERSION.value
    EVALUATION = Label.EVALUATION.value
    DEPLOYMENT = Label.DEPLOYMENT.value
    ENVIRONMENT = Label.ENVIRONMENT.value


def labels(types: list[NodeType] | None) -> tuple[str, ...]:
    return tuple(t.value for t in types or ())


def bounded(name: str, value: int | None, default: int, maximum: int) -> int:
    """`value` (or `default`) when within 1..maximum, else `invalid_argument`."""
    chosen = default if value is None else value
    if not 1 <= chosen <= maximum:
        raise InvalidArgumentError(
            f"{name} must be between 1 and {maximum}, got {chosen}.",
            argument=name,
            maximum=maximum,
        )
    return chosen


def page_size(first: int | None, settings: QuerySettings) -> int:
    return bounded("first", first, settings.page_default_size, settings.page_max_size)


def stamp(name: str, value: str | None) -> str | None:
    """An ISO-8601 time as the graph's fixed-width UTC text (naive times are UTC), so
    that it compares correctly, as a string, with the stored timestamps."""
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidArgumentError(f"{name} is not an ISO-8601 time: {value!r}.") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return format_time(moment.astimezone(UTC))
