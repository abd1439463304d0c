"""The versions inferred for OpenLineage inputs without a version facet do not depend on the
order the events arrive in: the same pipeline (tests/support/ol_pipeline.py), wrapped as ingest
wraps it, folded into real Neo4j in three orders, one event per transaction and all in one,
gives one graph, the one `verify`'s in-memory fold gives too; a read whose version is not
known yet stays a placeholder until it is; the projector over Kafka and `replay` of its log
rebuild the same graph.

Each order is folded into a fresh graph of the same project (the previous one deleted), so
the graph hashes compare as they are, ids included.
"""

from __future__ import annotations

from typing import Any

import pytest
from kafka import KafkaProducer
from neo4j import Driver
from openlineage.client.event_v2 import RunState
from support.ol_pipeline import BY_KEY, READS_OF, Ids, OlPipeline, as_dicts

from provgraph.ingest.graphread import read_graph
from provgraph.ingest.openlineage import NamespaceMap, wrap
from provgraph.ingest.projection import project_event
from provgraph.ingest.projection.canonical import CanonicalGraph, diff
from provgraph.ingest.projector.run import build_projector
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.ingest.tools.replay import replay
from provgraph.schemas import Event
from provgraph.schemas.graph import INFERRED, INFERRED_LATEST_AT_RUN_START

pytestmark = pytest.mark.integration

_INFERRED_USED = """
MATCH (r:Run)-[u:USED]->(v:DatasetVersion) WHERE r.id IN $runs AND u.inferred IS NOT NULL
RETURN r.id AS run, collect([v.id, u.inferred, u.role]) AS used
"""
START, COMPLETE = RunState.START, RunState.COMPLETE
_READS = "MATCH (r:Run {id: $run})-[:READS]->(d:Dataset) RETURN d.id AS dataset"


@pytest.fixture()
def pipeline(project: str) -> tuple[OlPipeline, Ids]:
    """The pipeline, both of its namespaces mapped to the test's project."""
    found = OlPipeline()
    names = {found.data_namespace: project, found.job_namespace: project}
    return found, Ids(found, NamespaceMap(names))


def _wrapped(ids: Ids, events: list[Any]) -> list[Event]:
    return [wrap(event, ids.names) for event in as_dicts(events)]


def _wipe(driver: Driver, project: str) -> None:
    driver.execute_query("MATCH (n {project: $p}) DETACH DELETE n", p=project)


def _write_each(driver: Driver, events: list[Event]) -> None:
    """One event per transaction: each arrives after the ones before are stored."""
    writer = GraphWriter(driver)
    for event in events:
        writer.write([project_event(event)])


def _inferred(driver: Driver, ids: Ids) -> dict[str, list[tuple[str, str, str]]]:
    runs = [ids.run(key) for key in READS_OF]
    records, _, _ = driver.execute_query(_INFERRED_USED, runs=runs)
    return {r["run"]: sorted(tuple(u) for u in r["used"]) for r in records}


def _expected_inferred(ids: Ids) -> dict[str, list[tuple[str, str, str]]]:
    return {
        ids.run(key): [(ids.version(name, writer), INFERRED_LATEST_AT_RUN_START, "input")]
        for key, (name, writer) in READS_OF.items()
    }


def test_three_arrival_orders_give_one_graph(
    neo4j_driver: Driver, project: str, pipeline: tuple[OlPipeline, Ids]
) -> None:
    source, ids = pipeline
    orders = {
        "chronological": source.chronological(),
        "as sent (out of order, a resend)": source.as_sent(),
        "reversed": source.reversed_order(),
    }
    graphs: dict[str, CanonicalGraph] = {}
    for name, order in orders.items():
        _wipe(neo4j_driver, project)
        _write_each(neo4j_driver, _wrapped(ids, order))
        assert _inferred(neo4j_driver, ids) == _expected_inferred(ids), name
        graphs[name] = read_graph(neo4j_driver, project)
    _wipe(neo4j_driver, project)
    GraphWriter(neo4j_driver).write([project_event(e) for e in _wrapped(ids, source.as_sent())])
    graphs["as sent, one transaction"] = read_graph(neo4j_driver, project)
    memory = MemoryGraph().fold(_wrapped(ids, source.reversed_order())).canonical(project)
    graphs["in memory (verify's fold)"] = memory
    first_name, first = next(iter(graphs.items()))
    for name, graph in graphs.items():
        assert diff(first, graph) == [], f"{name} differs from {first_name}"
        assert graph.digest() == first.digest()


def test_a_read_stays_a_placeholder_until_a_version_before_the_run_is_known(
    neo4j_driver: Driver, project: str, pipeline: tuple[OlPipeline, Ids]
) -> None:
    source, ids = pipeline
    e = source.event
    _write_each(neo4j_driver, _wrapped(ids, [e("dedup_2", START), e("dedup_2", COMPLETE)]))
    dedup = ids.run("dedup_2")
    assert _reads(neo4j_driver, dedup) == [ids.dataset(BY_KEY["dedup_2"].inputs[0])]
    assert _inferred(neo4j_driver, ids) == {}  # no version of corpus/clean known: READS only
    _write_each(neo4j_driver, _wrapped(ids, [e("clean", COMPLETE)]))
    version = ids.version("corpus/clean", "clean")
    assert _inferred(neo4j_driver, ids)[dedup] == [(version, INFERRED_LATEST_AT_RUN_START, "input")]


def test_the_start_time_decides_even_when_the_end_arrives_first(
    neo4j_driver: Driver, project: str, pipeline: tuple[OlPipeline, Ids]
) -> None:
    """ingest_raw ends after the late export wrote raw/tokens: known only by its end, it reads
    the late version; once its start is known, the version written before it started."""
    source, ids = pipeline
    e = source.event
    first = [e("export", COMPLETE), e("export_late", START), e("ingest_raw", COMPLETE)]
    _write_each(neo4j_driver, _wrapped(ids, first))
    reader = ids.run("ingest_raw")
    late, early = ids.version("raw/tokens", "export_late"), ids.version("raw/tokens", "export")
    assert [u[0] for u in _inferred(neo4j_driver, ids)[reader]] == [late]
    _write_each(neo4j_driver, _wrapped(ids, [e("ingest_raw", START)]))
    assert [u[0] for u in _inferred(neo4j_driver, ids)[reader]] == [early]


def _reads(driver: Driver, run: str) -> list[str]:
    records, _, _ = driver.execute_query(_READS, run=run)
    return sorted(str(r["dataset"]) for r in records)


def _produce(settings: IngestSettings, events: list[Event]) -> None:
    producer = KafkaProducer(bootstrap_servers=settings.kafka_bootstrap, acks="all")
    for event in events:
        producer.send(settings.events_topic, key=event.kafka_key(), value=event.to_json_bytes())
    producer.flush()
    producer.close()


def _without_log_stamps(graph: CanonicalGraph) -> CanonicalGraph:
    """The graph less what the log adds to each applied event (append time, principal): a
    fold without the log has neither."""
    for key, node in graph.nodes.items():
        if key.startswith("event:"):
            for prop in ("logged_at", "principal"):
                node["props"].pop(prop, None)
    return graph


def test_the_projector_and_replay_build_the_same_graph(
    settings: IngestSettings,
    neo4j_driver: Driver,
    project: str,
    pipeline: tuple[OlPipeline, Ids],
) -> None:
    source, ids = pipeline
    _produce(settings, _wrapped(ids, source.as_sent()))
    projector = build_projector(settings, neo4j_driver)
    try:
        projector.run_until_idle(60)
    finally:
        projector.close()
    live = read_graph(neo4j_driver, project)
    assert _inferred(neo4j_driver, ids) == _expected_inferred(ids)

    _wipe(neo4j_driver, project)
    neo4j_driver.execute_query(
        "MATCH (o:ProjectorOffset {topic: $t}) DELETE o", t=settings.events_topic
    )
    replay(settings, GraphWriter(neo4j_driver), require_empty=False)
    assert diff(live, read_graph(neo4j_driver, project)) == []

    _wipe(neo4j_driver, project)
    _write_each(neo4j_driver, _wrapped(ids, source.chronological()))
    direct = read_graph(neo4j_driver, project)
    assert diff(direct, _without_log_stamps(live)) == []
    assert INFERRED in "".join(direct.edges)  # the hash covers the inferred links
