"""`provgraph projector | replay | verify | graph-hash | deadletters`: the projector and the
audit tools."""

from __future__ import annotations

import argparse
import logging
import re
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from neo4j import Driver

from provgraph.ingest import deadletter_cli
from provgraph.ingest.settings import IngestSettings

if TYPE_CHECKING:  # the loop, the fold and the Kafka clients load only when a command runs
    from provgraph.ingest.ports import BatchWriter
    from provgraph.ingest.projector import Projector, Stats

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
    # No-op when the process already logs somewhere (a test runner, an embedding program).
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", handlers=[handler]
    )
    logging.getLogger("kafka").setLevel(logging.WARNING)  # its INFO is per-connection chatter


def _settings(args: argparse.Namespace) -> IngestSettings:
    overrides: dict[str, Any] = {}
    if getattr(args, "topic", None):
        overrides["events_topic"] = args.topic
    return IngestSettings(**overrides)


def build_projector(
    settings: IngestSettings,
    driver: Driver,
    *,
    writer: BatchWriter | None = None,
    stop: threading.Event | None = None,
) -> Projector:
    """The production projector: the Kafka event source, the Neo4j writer (unless `writer`
    is given), the dead-letter topic. The caller keeps `driver` and closes it."""
    from provgraph.ingest.deadletter import DeadLetters
    from provgraph.ingest.kafka_source import KafkaEventSource
    from provgraph.ingest.projector import Projector
    from provgraph.ingest.writer import GraphWriter

    writer = writer or GraphWriter(driver, settings.neo4j_database)
    source = KafkaEventSource(settings)
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
    from provgraph.core.eventlog import ensure_topics
    from provgraph.ingest.batch import is_unavailable
    from provgraph.ingest.constraints import apply_schema
    from provgraph.ingest.projector import (
        Stats,
        Stopped,
        kafka_unavailable,
        retry_while_unavailable,
    )

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
    from provgraph.ingest.redrive import redrive_parked

    try:
        redrive_parked(settings)
    except Exception as exc:  # the letters wait for the next start; projecting comes first
        log.warning("redrive of parked dead letters skipped: %s: %s", type(exc).__name__, exc)


def _projector(args: argparse.Namespace) -> int:
    stats = run_projector(_settings(args), until_idle=args.until_idle, timeout_s=args.timeout)
    print(f"projector: {stats}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    from provgraph.ingest.constraints import apply_schema
    from provgraph.ingest.kafka_source import log_size
    from provgraph.ingest.replay import Progress, ReplayError, replay
    from provgraph.ingest.writer import GraphWriter

    settings = _settings(args)
    progress = Progress(log_size(settings))
    with settings.neo4j_driver() as driver:
        apply_schema(driver, settings.neo4j_database)
        try:
            writer = GraphWriter(driver, settings.neo4j_database)
            records, applied, poison = replay(
                settings, writer, progress.advance, require_empty=not args.force
            )
        except ReplayError as exc:
            print(f"replay: {exc} (use --force to fold into it anyway)", file=sys.stderr)
            return 2
    print(
        f"\nreplay: {records} records, {applied} events applied, {poison} dead-lettered "
        f"records skipped in {progress.elapsed():.1f}s"
    )
    return 0


def _verify(args: argparse.Namespace) -> int:
    from provgraph.ingest.verify import verify

    settings = _settings(args)
    with settings.neo4j_driver() as driver:
        differences = verify(settings, driver, args.project)
    for line in differences:
        print(line)
    print(f"verify: {len(differences) or 'no'} differences", file=sys.stderr)
    return 1 if differences else 0


def _graph_hash(args: argparse.Namespace) -> int:
    from provgraph.ingest.verify import graph_hash

    settings = _settings(args)
    with settings.neo4j_driver() as driver:
        print(graph_hash(driver, args.project, settings.neo4j_database))
    return 0


def register(sub: Any) -> None:
    """Add the projector and audit sub-commands to the `provgraph` command line."""
    p = sub.add_parser("projector", help="fold the event log into Neo4j (a consumer group)")
    p.add_argument("--topic", help="event log topic (default: PROVGRAPH_EVENTS_TOPIC)")
    p.add_argument("--until-idle", action="store_true", help="exit once caught up")
    p.add_argument("--timeout", type=float, default=600.0, help="--until-idle limit, seconds")
    p.set_defaults(func=_projector)

    p = sub.add_parser("replay", help="rebuild the graph from offset 0 into an empty database")
    p.add_argument("--topic", help="event log topic")
    p.add_argument("--force", action="store_true", help="fold into a non-empty database")
    p.set_defaults(func=_replay)

    p = sub.add_parser("verify", help="fold the log in memory and compare it with Neo4j")
    p.add_argument("--topic", help="event log topic")
    p.add_argument("--project", help="compare only this project's part of the graph")
    p.set_defaults(func=_verify)

    p = sub.add_parser("graph-hash", help="print a canonical hash of the graph")
    p.add_argument("--project", help="hash only this project's part of the graph")
    p.set_defaults(func=_graph_hash)

    deadletter_cli.register(sub)
