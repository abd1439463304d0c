"""A replay that stops (stopped after some batches, or SIGKILLed) resumes after its last whole
batch with `--resume`: the graph equals the fold of the log and every event is applied once.
Real Kafka and Neo4j; the topic holds several times the replay batch."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest
from kafka import KafkaProducer
from neo4j import Driver
from support.projection_workload import Workload

from provgraph.cli import main
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.log_reader import log_spans
from provgraph.ingest.tools.replay import (
    REPLAY_BATCH,
    ReplayError,
    progress_key,
    replay,
    replay_start,
)
from provgraph.ingest.tools.verify import verify
from provgraph.schemas import Event

BATCH = 400  # the in-process replays' batch: the log holds many of them


class _Stop(Exception):
    """Raised by the progress callback: the replay stops after a committed batch."""


def _stop_after(batches: int) -> Callable[[int], None]:
    seen: list[int] = []

    def progress(count: int) -> None:
        seen.append(count)
        if len(seen) == batches:
            raise _Stop

    return progress


def _fill(settings: IngestSettings, project: str, runs: int) -> list[Event]:
    events = Workload(project, 5).build(runs=runs, datasets=3)
    producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, linger_ms=5)
    for event in events:  # keyed by entity: spread over the topic's 3 partitions
        producer.send(settings.events_topic, key=event.kafka_key(), value=event.to_json_bytes())
    producer.flush()
    producer.close()
    return events


def _applied(driver: Driver, project: str) -> int:
    return int(
        driver.execute_query(
            "MATCH (e:AppliedEvent {project: $p}) RETURN count(e) AS n", p=project
        ).records[0]["n"]
    )


@pytest.fixture()
def forget_progress(neo4j_driver: Driver, settings: IngestSettings) -> Iterator[None]:
    yield
    neo4j_driver.execute_query(
        "MATCH (o:ProjectorOffset {topic: $t}) DELETE o", t=progress_key(settings.events_topic)
    )


@pytest.mark.usefixtures("forget_progress")
def test_a_replay_stopped_after_three_batches_resumes_after_them(
    settings: IngestSettings, neo4j_driver: Driver, project: str
) -> None:
    events = _fill(settings, project, runs=500)
    n = len(events)
    assert n > 8 * BATCH
    writer = GraphWriter(neo4j_driver)
    with pytest.raises(_Stop):
        replay(settings, writer, _stop_after(3), require_empty=False, batch=BATCH)
    assert _applied(neo4j_driver, project) == 3 * BATCH
    start = replay_start(settings, writer, resume=True, require_empty=True)
    assert (start.done, start.total) == (3 * BATCH, n)

    records, applied, poison = replay(settings, writer, resume=True, batch=BATCH)

    assert (records, applied, poison) == (n - 3 * BATCH, n - 3 * BATCH, 0)  # each event once
    assert _applied(neo4j_driver, project) == n
    assert verify(settings, neo4j_driver, project) == []
    # The projector's own offsets stand at the end: a live projector continues from there.
    ends = {p: end - 1 for p, (_, end) in log_spans(settings).items() if end}
    assert writer.read_offsets(settings.events_topic) == ends
    assert writer.read_offsets(progress_key(settings.events_topic)) == ends


@pytest.mark.usefixtures("forget_progress")
def test_resume_without_a_stopped_replay_is_refused_and_a_new_replay_starts_afresh(
    settings: IngestSettings, neo4j_driver: Driver, project: str
) -> None:
    n = len(_fill(settings, project, runs=150))
    writer = GraphWriter(neo4j_driver)
    with pytest.raises(ReplayError, match=r"no stopped replay of topic .* to resume"):
        replay(settings, writer, resume=True, batch=BATCH)
    with pytest.raises(_Stop):
        replay(settings, writer, _stop_after(1), require_empty=False, batch=BATCH)
    # Without --resume the whole log is read again (its old progress forgotten first).
    assert replay(settings, writer, require_empty=False, batch=BATCH) == (n, n - BATCH, 0)
    assert replay_start(settings, writer, resume=True, require_empty=True).done == n


def _replay_process(settings: IngestSettings) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PROVGRAPH_KAFKA_BOOTSTRAP": settings.kafka_bootstrap,
        "PROVGRAPH_NEO4J_URI": settings.neo4j_uri,
        "PROVGRAPH_NEO4J_USER": settings.neo4j_user,
        "PROVGRAPH_NEO4J_PASSWORD": settings.neo4j_password,
    }
    command = [sys.executable, "-m", "provgraph.cli", "replay", "--force"]
    return subprocess.Popen(
        [*command, "--topic", settings.events_topic],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _kill_after_first_batch(proc: subprocess.Popen[bytes], writer: GraphWriter, key: str) -> None:
    deadline = time.monotonic() + 120
    while not writer.read_offsets(key):
        assert proc.poll() is None, "the replay ended before its first batch was seen"
        assert time.monotonic() < deadline, "no replay batch was committed in 120 s"
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)


@pytest.mark.usefixtures("forget_progress")
def test_a_sigkilled_replay_resumes_with_the_same_graph(
    settings: IngestSettings,
    neo4j_driver: Driver,
    project: str,
    cli_env: IngestSettings,
    capfd: pytest.CaptureFixture[str],
) -> None:
    n = len(_fill(settings, project, runs=2800))
    assert n > 4 * REPLAY_BATCH
    writer = GraphWriter(neo4j_driver)
    _kill_after_first_batch(_replay_process(settings), writer, progress_key(settings.events_topic))
    done = replay_start(settings, writer, resume=True, require_empty=True).done
    assert 0 < done < n, "killed mid-way"
    assert done % REPLAY_BATCH == 0, "progress moves by whole batches"
    assert _applied(neo4j_driver, project) == done

    assert main(["replay", "--topic", settings.events_topic]) == 2
    assert (
        f"stopped at {done} of {n} records: `provgraph replay --resume`" in capfd.readouterr().err
    )
    assert main(["replay", "--topic", settings.events_topic, "--resume"]) == 0

    out = capfd.readouterr()
    assert f"resuming at {done} of {n} records" in out.err
    assert f"{n}/{n} records (100.0%)" in out.err
    assert f"replay: {n - done} records, {n - done} events applied, 0 " in out.out
    assert _applied(neo4j_driver, project) == n
    assert verify(settings, neo4j_driver, project) == []
