"""Waiting out an outage of Kafka or Neo4j: capped exponential backoff, interruptible."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from kafka.errors import KafkaError

from provgraph.client.errors import TransportError
from provgraph.ingest.projector.batch import Interrupted
from provgraph.ingest.settings import IngestSettings

log = logging.getLogger("provgraph.ingest.projector.loop")


class ProjectorError(Exception):
    """Root of the projector's errors."""


class Stopped(ProjectorError, Interrupted):
    """The projector was asked to stop while it waited for Neo4j."""


def retry_while_unavailable(
    action: Callable[[], Any],
    what: str,
    transient: Callable[[BaseException], bool],
    settings: IngestSettings,
    stop: threading.Event,
    on_retry: Callable[[], None] = lambda: None,
) -> Any:
    """Run `action`, retrying with capped exponential backoff while it fails with an error
    `transient` calls an outage of `what`; `Stopped` when `stop` is set meanwhile."""
    delay = settings.projector_backoff_initial_s
    while True:
        try:
            return action()
        except Exception as exc:
            if not transient(exc):
                raise
            on_retry()
            log.warning("%s unavailable (%s); retrying in %.1fs", what, exc, delay)
        if stop.wait(delay):
            raise Stopped(f"stopped while waiting for {what}")
        delay = min(delay * 2, settings.projector_backoff_max_s)


def kafka_unavailable(exc: BaseException) -> bool:
    """True for errors that mean "Kafka is not there right now"."""
    return isinstance(exc, KafkaError | TransportError)
