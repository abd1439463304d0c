"""What a real projector process says and how `provgraph services status` judges it.

A normal start logs a few INFO lines (where it connects, what it holds). `services status`
calls a projector healthy while it consumes or has nothing to do, and degraded, with the
reason, while it is alive but not consuming: frozen with SIGSTOP while events are pending,
then dropped from its consumer group once its session times out.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from neo4j import Driver
from projector_processes import ProjectorProcess, applied_records, produce, wait_for
from support.projection_workload import Workload

from provgraph.cli.services import projector_probe, provgraph_apps
from provgraph.core.eventlog import ensure_topics
from provgraph.infra.apps import Apps, AppState
from provgraph.infra.settings import InfraSettings
from provgraph.ingest.projector.progress import client_id, read_group
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas.graph import schema_statements

# Short limits, so that each state is reached in seconds.
STALLED_AFTER_S = 3.0
SESSION_TIMEOUT_MS = 6000


def test_a_normal_start_says_where_it_connects_and_what_it_holds_and_no_more(
    settings: IngestSettings,
    project: str,
    projector_process: Callable[[IngestSettings], ProjectorProcess],
) -> None:
    ensure_topics(settings)  # as ingest or an earlier start left them (a first start says so)
    produce(settings.kafka_bootstrap, settings.events_topic, Workload(project, 59).build(runs=2))
    process = projector_process(settings)
    process.start("--until-idle", "--timeout", "60")
    assert process.wait_exit(timeout_s=90) == 0, process.output()
    said = [line.split(" ", 2)[2] for line in process.output().splitlines() if " INFO " in line]
    topic, group = settings.events_topic, settings.projector_group
    assert said == [
        f"INFO projector: Kafka {settings.kafka_bootstrap} topic {topic} group {group}, "
        f"Neo4j {settings.neo4j_uri} database neo4j",
        f"INFO redrive: 0 parked dead letters appended to {topic} again, 0 still not "
        "understood (0 dead letters read)",
        f"INFO Neo4j database neo4j: {len(schema_statements())} constraints and indexes in "
        "place (0 created)",
        f"INFO assigned partitions [0, 1, 2] of {topic}",
    ], process.output()
    assert "already exists" not in process.output()


@pytest.fixture()
def apps(
    settings: IngestSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Apps]:
    """`provgraph services up`, of the projector alone, on the test's topic and group."""
    env = {
        "PROVGRAPH_HOME": f"{tmp_path}/home",
        "PROVGRAPH_KAFKA_BOOTSTRAP": settings.kafka_bootstrap,
        "PROVGRAPH_NEO4J_URI": settings.neo4j_uri,
        "PROVGRAPH_NEO4J_USER": settings.neo4j_user,
        "PROVGRAPH_NEO4J_PASSWORD": settings.neo4j_password,
        "PROVGRAPH_EVENTS_TOPIC": settings.events_topic,
        "PROVGRAPH_DEAD_LETTER_TOPIC": settings.dead_letter_topic,
        "PROVGRAPH_PROJECTOR_GROUP": settings.projector_group,
        "PROVGRAPH_PROJECTOR_POLL_TIMEOUT_MS": "200",
        "PROVGRAPH_PROJECTOR_SESSION_TIMEOUT_MS": str(SESSION_TIMEOUT_MS),
        "PROVGRAPH_PROJECTOR_STALLED_AFTER_S": str(STALLED_AFTER_S),
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    launched = provgraph_apps(InfraSettings())
    launched.specs = [spec for spec in launched.specs if spec.name == "projector"]
    launched.up()
    try:
        yield launched
    finally:
        pid = launched.process(launched.specs[0]).pid()
        if pid is not None:
            os.kill(pid, signal.SIGCONT)  # a frozen process cannot act on SIGTERM
        launched.down()


def _state(apps: Apps) -> AppState:
    (row,) = apps.report({"projector": projector_probe(apps.env())})
    return row


def _status_command() -> str:
    """`provgraph services status`, as typed (in this test's environment)."""
    argv = [sys.executable, "-m", "provgraph.cli", "services", "status"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


def test_status_tells_a_consuming_projector_from_one_that_is_alive_but_not_consuming(
    apps: Apps, settings: IngestSettings, neo4j_driver: Driver, project: str
) -> None:
    proc = apps.process(apps.specs[0])
    pid = proc.pid()
    assert pid is not None
    topic, log = settings.events_topic, proc.log_tail
    events = Workload(project, 61).build(runs=4)
    half = len(events) // 2

    joined = lambda: client_id(pid) in read_group(settings).members  # noqa: E731
    wait_for(joined, 30, "the projector to join its group", log)
    produce(settings.kafka_bootstrap, topic, events[:half])
    wait_for(lambda: applied_records(neo4j_driver, topic) == half, 30, "the first half", log)
    # Caught up and idle for longer than the limit: healthy, however old its last commit.
    time.sleep(STALLED_AFTER_S + 0.5)
    assert _state(apps) == AppState(apps.specs[0], pid, "healthy")

    os.kill(pid, signal.SIGSTOP)
    try:
        produce(settings.kafka_bootstrap, topic, events[half:])
        row = _state(apps)
        stalled = r"\d+ events pending \(partitions [\d, ]+\), no progress for \d+s"
        assert row.state == "degraded" and re.fullmatch(stalled, row.reason), row
        shown = _status_command()
        assert re.search(rf"^projector +degraded +pid {pid} .* {stalled}$", shown, re.M), shown
        # Frozen past its session timeout: the group drops it, and status says so.
        dropped = lambda: "not a member" in _state(apps).reason  # noqa: E731
        wait_for(dropped, 30, "the group to drop the frozen projector", log)
        assert _state(apps).reason.startswith(
            f"pid {pid} is not a member of consumer group {settings.projector_group}"
        )
    finally:
        os.kill(pid, signal.SIGCONT)
    # Thawed, it rejoins, catches up and is healthy again.
    all_applied = lambda: applied_records(neo4j_driver, topic) == len(events)  # noqa: E731
    wait_for(all_applied, 60, "the second half", log)
    wait_for(
        lambda: _state(apps).state == "healthy", 30, "healthy again", lambda: str(_state(apps))
    )
