"""What `provgraph projector` runs: the production projector wired on its ports, and the
process around its loop (topics and schema ensured, parked dead letters redriven, logging,
signals, waiting for Kafka and Neo4j)."""

from __future__ import annotations

import logging
import re
import signal
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from neo4j import Driver

from provgraph.core.eventlog import ensure_topics
from provgraph.ingest.ports import BatchWriter
from provgraph.ingest.projector.batch import is_unavailable
from provgraph.ingest.projector.constraints import apply_schema
from provgraph.ingest.projector.deadletter import DeadLetters
from provgraph.ingest.projector.kafka_source import KafkaEventSource
from provgraph.ingest.projector.loop import (
    Projector,
    Stats,
    Stopped,
    kafka_unavailable,
    retry_while_unavailable,
)
from provgraph.ingest.projector.redrive import redrive_parked
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings

log = logging.getLogger(__name__)

# What varies between two otherwise equal log lines: numbers and object addresses.
_VARYING = re.compile(r"0x[0-9a-f]+|\d+(?:\.\d+)?")


class QuietRepeats(logging.Filter):
    """Lets each distinct message of the loggers under `prefix` through once per `every_s`.

    While a broker is down, kafka-python logs the same few warnings several times a second;
    one of each per interval says the same without burying everything else.
    """

    def __init__(self, prefix: str, every_s: float) -> None:
        super().__init__()
        self.prefix, self.every_s = prefix, every_s
        self._last: dict[tuple[str, int, str], float] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith(self.prefix):
            return True
        key = (record.name, record.levelno, _VARYING.sub("#", str(record.msg)))
        now = time.monotonic()
        if now - self._last.get(key, -self.every_s) < self.every_s:
            return False
        self._last[key] = now
        return True


def _configure_logging() -> None:
    handler = logging.StreamHandler()
    handler.addFilter(QuietRepeats("kafka", 60.0))
    # The routing driver logs an ERROR on every retry while Neo4j is down: once a minute.
    handler.addFilter(QuietRepeats("neo4j", 60.0))
    # No-op when the process already logs somewhere (a test runner, an embedding program).
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", handlers=[handler]
    )
    logging.getLogger("kafka").setLevel(logging.WARNING)  # its INFO is per-connection chatter


def build_projector(
    settings: IngestSettings,
    driver: Driver,
    *,
    writer: BatchWriter | None = None,
    stop: threading.Event | None = None,
) -> Projector:
    """The production projector: the Kafka event source, the Neo4j writer (unless `writer`
    is given), the dead-letter topic. The caller keeps `driver` and closes it."""
    writer = writer or GraphWriter(driver, settings.neo4j_database)
    # numbers in the whole log's order, when asked: what the group's other members applied
    applied = partial(writer.read_offsets, settings.events_topic)
    source = KafkaEventSource(settings, applied if settings.projector_exact_group_numbers else None)
    return Projector(settings, source, writer, DeadLetters(settings), stop=stop)


def run_projector(
    settings: IngestSettings,
    *,
    until_idle: bool = False,
    timeout_s: float = 600.0,
    writer: Callable[[Driver], BatchWriter] | None = None,
) -> Stats:
    """What `provgraph projector` runs: topics and schema ensured, parked dead letters it
    understands now appended to the log again, then the loop until a signal (or, with
    `until_idle`, until caught up); `writer` replaces the Neo4j writer.

    Started while Kafka or Neo4j is down, it waits for them (with the loop's backoff) rather
    than exiting: a supervisor restarting it in a loop is not needed.
    """
    _configure_logging()
    log.info(
        "projector: Kafka %s topic %s group %s, Neo4j %s database %s",
        settings.kafka_bootstrap,
        settings.events_topic,
        settings.projector_group,
        settings.neo4j_uri,
        settings.neo4j_database,
    )
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())

    def when_up(what: str, action: Callable[[], Any]) -> Any:
        transient = kafka_unavailable if what == "Kafka" else is_unavailable
        return retry_while_unavailable(action, what, transient, settings, stop)

    with settings.neo4j_driver() as driver:
        try:
            when_up("Kafka", lambda: ensure_topics(settings))
            _redrive_parked(settings)
            when_up("Neo4j", lambda: apply_schema(driver, settings.neo4j_database))
            custom = writer(driver) if writer else None
            projector: Projector = when_up(
                "Kafka", lambda: build_projector(settings, driver, writer=custom, stop=stop)
            )
        except Stopped:
            return Stats()
        try:
            return projector.run_until_idle(timeout_s) if until_idle else projector.run()
        finally:
            projector.close()


def _redrive_parked(settings: IngestSettings) -> None:
    try:
        redrive_parked(settings)
    except Exception as exc:  # the letters wait for the next start; projecting comes first
        log.warning("redrive of parked dead letters skipped: %s: %s", type(exc).__name__, exc)
