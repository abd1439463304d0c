"""What a run stands on: something that builds events with its defaults and emits them."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TypeVar
from uuid import UUID

from provgraph.client.errors import ClientError
from provgraph.schemas import Event, Payload

E = TypeVar("E", bound=Event)


class EventSink(ABC):
    """Builds events with a default project, actor and producer, and emits them.

    `provgraph.client.Emitter` is the one that delivers; `provgraph.client.run.Run` needs only
    this much of it.
    """

    project: str | None
    actor: str | None
    producer: str

    @abstractmethod
    def emit(self, event: Event) -> None:
        """Hand `event` over for delivery."""

    def make(
        self,
        model: type[E],
        payload: Payload,
        *,
        project: str | None = None,
        correlation_id: UUID | None = None,
        causation_id: UUID | None = None,
    ) -> E:
        """Build an event of `model` with this sink's project, actor and producer."""
        return model.create(
            project=_require("project", project or self.project),
            producer=self.producer,
            actor=_require("actor", self.actor),
            payload=payload,
            correlation_id=correlation_id,
            causation_id=causation_id,
        )


def _require(what: str, value: str | None) -> str:
    if not value:
        env = {"project": "PROVGRAPH_PROJECT", "actor": "PROVGRAPH_ACTOR"}[what]
        raise ClientError(f"no {what}: pass {what}=... or set {env}")
    return value
