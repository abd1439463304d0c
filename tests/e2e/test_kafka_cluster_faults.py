"""A Kafka cluster that loses a broker: three KRaft broker-controllers (replication 3,
min.insync.replicas 2), the ingest service and two projectors in one group, a steady load
through ingest's HTTP API. The broker leading most of the event log's partitions and one
projector are killed with SIGKILL, then brought back.

Then: ingest kept acknowledging while two brokers were in sync; every acknowledged event is
applied exactly once; the graph equals the fold of the log (`verify`) and the fold of the
acknowledged events; the lag is back to zero, in Neo4j's stored offsets and in the group's
Kafka commits. The cluster is private to this test; Neo4j is the session's, the project and
the topics the test's own.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from cluster_stack import (
    Load,
    applied_counts,
    cluster_stack,
    describe,
    fold_acked,
    group_lag,
    kill_app,
    lag,
    log_copies,
    window,
)
from e2e_helpers import await_principal
from neo4j import Driver
from support.kafka_cluster import PrivateCluster

from provgraph.authz.admin import bootstrap_admin_token
from provgraph.core.eventlog import open_event_log
from provgraph.infra.apps import Apps
from provgraph.infra.process import wait_until
from provgraph.ingest.graphread import read_graph
from provgraph.ingest.projection.canonical import diff
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.verify import verify

PARTITIONS = 6
MAX_EVENTS = 5_000  # ~60 s of load at its pace: more than the faults need
WARM_UP_EVENTS = 300
AFTER_RESTART_EVENTS = 300
IN_SYNC_WINDOW_S = 8.0
# After the leaders moved, the ingest producer's first sends may still wait on the old ones.
SETTLE_S = 2.0
ALL = {1, 2, 3}


# Three broker JVMs, ingest and two projectors on a shared 2-core machine: room beyond the
# suite's default, every wait inside bounded on its own.
@pytest.mark.timeout(480)
def test_a_killed_leader_broker_and_projector_lose_no_acknowledged_event(
    tmp_path: Path, endpoints: Any, neo4j_driver: Driver, project: str
) -> None:
    with PrivateCluster(tmp_path / "kafka") as kafka:
        settings = _settings(kafka.bootstrap, endpoints)
        apps = cluster_stack(tmp_path / "home", settings, projectors=2)
        assert [s.name for s in apps.specs] == ["ingest", "projector", "projector-2"]
        try:
            apps.up()
            token = _admin_token(apps.settings.admin_token_file, settings, neo4j_driver)
            load = Load(apps.settings.ingest_url, token, project, MAX_EVENTS)
            load.start()
            try:
                _faults(kafka, apps, settings, load)
            finally:
                load.stop()
            _check(settings, neo4j_driver, load, project)
        finally:
            apps.down()


def _settings(bootstrap: str, endpoints: Any) -> IngestSettings:
    stem = f"t-cluster-{uuid.uuid4().hex[:8]}"
    neo4j = endpoints.neo4j
    return IngestSettings(
        kafka_bootstrap=bootstrap,
        events_topic=f"{stem}.events",
        dead_letter_topic=f"{stem}.dlq",
        topic_partitions=PARTITIONS,
        topic_replication=3,
        topic_min_insync_replicas=2,
        projector_group=f"{stem}.projector",
        neo4j_uri=neo4j.uri,
        neo4j_user=neo4j.user,
        neo4j_password=neo4j.password,
    )


def _admin_token(path: Path, settings: IngestSettings, driver: Driver) -> str:
    """The stack's admin token, issued as `infra up` issues it, once the projectors have it."""
    with closing(open_event_log(settings, client_id="cluster-test")) as log:
        token = bootstrap_admin_token(path, log)
    assert token is not None
    await_principal(driver, token, timeout_s=90)
    return token


def _faults(kafka: PrivateCluster, apps: Apps, settings: IngestSettings, load: Load) -> None:
    topic = settings.events_topic
    assert wait_until(lambda: kafka.in_sync(topic, PARTITIONS, ALL), 60.0, 0.5)
    _await_acked(load, WARM_UP_EVENTS, "the warm-up")

    leaders = kafka.leaders(topic)
    victim, led = Counter(leaders.values()).most_common(1)[0]
    print(f"\nleaders {leaders}: killing broker {victim} (leads {led}) and one projector")
    killed_at = time.monotonic()
    kafka.kill(victim)
    kill_app(apps, "projector-2")

    survivors = ALL - {victim}
    moved = wait_until(lambda: kafka.in_sync(topic, PARTITIONS, survivors), 60.0, 0.5)
    assert moved, f"the partitions did not move to brokers {survivors}: {kafka.partitions(topic)}"
    in_sync_at = time.monotonic()
    time.sleep(SETTLE_S + IN_SYNC_WINDOW_S)
    restart_at = time.monotonic()
    # Ingest kept acknowledging while two brokers were in sync (acks=all, min.insync 2).
    seen = window(load.attempts, in_sync_at + SETTLE_S, restart_at)
    timeline = describe(load.attempts, killed_at)
    assert len(seen) >= 5, f"too few requests while two brokers were in sync: {timeline}"
    assert all(200 <= a.status < 300 for a in seen), f"ingest refused writes: {timeline}"

    kafka.restart(victim)
    assert apps.up() == ["ingest", "projector", "projector-2"]
    assert wait_until(lambda: kafka.in_sync(topic, PARTITIONS, ALL), 120.0, 0.5)
    _await_acked(load, load.acked_count() + AFTER_RESTART_EVENTS, "after the restart")


def _await_acked(load: Load, count: int, what: str) -> None:
    if not wait_until(lambda: load.acked_count() >= count, 90.0, 0.2):
        timeline = describe(load.attempts[-40:], time.monotonic())
        raise AssertionError(
            f"{what}: {load.acked_count()} of {count} events acknowledged, {timeline}"
        )


def _check(settings: IngestSettings, driver: Driver, load: Load, project: str) -> None:
    acked = [str(e.event_id) for e in load.acked]
    assert len(set(acked)) == len(acked) >= WARM_UP_EVENTS + AFTER_RESTART_EVENTS
    assert len(load.sent) == len(acked), "ingest never acknowledged a batch it was sent"
    assert wait_until(lambda: not any(lag(settings, driver).values()), 120.0, 1.0), lag(
        settings, driver
    )
    assert wait_until(lambda: not any(group_lag(settings).values()), 60.0, 1.0), group_lag(settings)
    # Every acknowledged event applied exactly once, and nothing that was not sent.
    counts = applied_counts(driver, acked)
    assert {i for i in acked if counts[i] != 1} == set(), "applied not exactly once"
    records, _, _ = driver.execute_query(
        "MATCH (e:AppliedEvent {project: $p}) RETURN count(e) AS n", p=project
    )
    assert records[0]["n"] == len(acked)
    copies, stamps = log_copies(settings)
    assert not set(acked) - set(copies), "an acknowledged event is not in the log"
    print(f"log: {sum(copies.values())} records of {len(copies)} events; {len(acked)} acked")
    # The graph is the fold of the log, and the fold of what ingest acknowledged.
    assert verify(settings, driver, project) == []
    expected = fold_acked(load.acked, stamps, project)
    assert diff(expected, read_graph(driver, project)) == []
