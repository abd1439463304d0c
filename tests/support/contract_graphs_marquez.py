"""The graph of the Marquez and column-read contracts (tests/contracts/marquez_reads.py and
column_reads.py): events of two projects, folded by the projection into the in-memory graph
the fakes answer from, and written by the writer into Neo4j for the Neo4j adapters, so that
both hold the graph production writes (the writer's own contract holds the two folds equal).

Project `a` is the Marquez world of the client-limits tests (`marquez_world.py`: a column
chain c00 → c12, 13 versions of `tokens`, 15 namespaces), several times larger than the
contract's page ceiling, plus:

    Mixed    (lake)  written by job `mix`, from b's `secret` and c00 (column v from both);
                     its capital sorts it first, as code point order does
    gone     (lake)  written by job `drop`; the dataset and the job are then deleted
    corpus   (a)     born in provgraph, versions v1 and v2, read by the runs of `exp`
    exp      (a)     an experiment (a job of namespace a), runs e1 (completed) and e2

Project `b`: `secret` (its vault), written by its job `copy` from a's c12 (column v), and
its own experiment `exp`. A reader of `a` alone must find none of b's nodes, by any key.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pytest
from neo4j import Driver

from provgraph.ingest.openlineage import NamespaceMap, wrap
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.query.read import model
from provgraph.query.read.convert import node_view
from provgraph.query.read.marquez_ids import marquez_id
from provgraph.query.read.model import EdgeView, NodeView
from provgraph.schemas import (
    DatasetRegistered,
    DatasetVersionCreated,
    EntityDeleted,
    Event,
    ExperimentCreated,
    Payload,
    RunCompleted,
    RunStarted,
    dataset_id,
    dataset_version_id,
    experiment_id,
)
from provgraph.schemas.events.data import DatasetRegisteredPayload, DatasetVersionCreatedPayload
from provgraph.schemas.events.experiment import (
    ExperimentCreatedPayload,
    RunInput,
    RunStartedPayload,
)
from provgraph.schemas.events.governance import EntityDeletedPayload
from provgraph.schemas.events.openlineage import OpenLineageRunEvent
from provgraph.schemas.events.run import RunCompletedPayload
from provgraph.schemas.graph import Label
from provgraph.schemas.storage import public
from support import marquez_world
from support.marquez_world import FACET_URL, PRODUCER, World, chain

SECRET, MIXED, GONE = "secret", "Mixed", "gone"
COPY, MIX, DROP = "copy", "mix", "drop"
CORPUS, EXP = "corpus", "exp"
COLUMN = "v"
MARQUEZ_KINDS = (Label.DATASET, Label.JOB, Label.EXPERIMENT)


def _at(hour: int, minute: int) -> datetime:
    return datetime.fromisoformat(f"2026-02-01T{hour:02d}:{minute:02d}:00+00:00")


def _output(namespace: str, name: str, sources: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """A dataset whose column `v` comes from column `v` of each of `sources`."""
    inputs = [{"namespace": ns, "name": n, "field": COLUMN} for ns, n in sources]
    facets = {
        "schema": {
            "_producer": PRODUCER,
            "_schemaURL": f"{PRODUCER}/schema",
            "fields": [{"name": COLUMN, "type": "string"}],
        },
        "columnLineage": {
            "_producer": PRODUCER,
            "_schemaURL": FACET_URL,
            "fields": {COLUMN: {"inputFields": inputs}},
        },
    }
    return {"namespace": namespace, "name": name, "facets": facets}


@dataclass
class MarquezGraph:
    """Both projects' events and the graph they fold into, as views: what every adapter of
    the contracts reads (`nodes` by id, `edges` with their public properties)."""

    world: World
    b: str
    events: list[Event] = field(default_factory=list)
    nodes: dict[str, NodeView] = field(default_factory=dict)
    edges: list[EdgeView] = field(default_factory=list)

    @property
    def a(self) -> str:
        return self.world.project

    @property
    def lake(self) -> str:
        return self.world.lake

    @property
    def vault(self) -> str:
        """b's dataset namespace."""
        return f"s3://{self.b}-vault"

    @property
    def b_jobs(self) -> str:
        """b's job namespace."""
        return f"airflow://{self.b}:prod"

    def dataset(self, namespace: str, name: str) -> NodeView:
        """The Dataset with Marquez's id `dataset:<namespace>:<name>`."""
        return self.by_marquez_id(marquez_id("dataset", namespace, name))

    def job(self, namespace: str, name: str) -> NodeView:
        """The Job with Marquez's id `job:<namespace>:<name>`."""
        return self.by_marquez_id(marquez_id("job", namespace, name))

    def by_marquez_id(self, key: str) -> NodeView:
        (found,) = (n for n in self.nodes.values() if n.props.get("marquez_id") == key)
        return found

    @property
    def corpus(self) -> NodeView:
        """a's dataset born in provgraph."""
        return self.nodes[dataset_id(self.a, CORPUS)]

    def experiment(self, project: str) -> NodeView:
        return self.nodes[experiment_id(project, EXP)]

    def version(self, dataset: NodeView, label: str) -> NodeView:
        return self.nodes[f"{dataset.id}@{label}"]

    def edge(self, src: str, rel: str, dst: str) -> EdgeView:
        (found,) = (e for e in self.edges if (e.src, e.type, e.dst) == (src, rel, dst))
        return found

    def linked(self, rel: str, *, src: str | None = None, dst: str | None = None) -> list[str]:
        """The ids at the other end of the `rel` relationships of `src` (or into `dst`)."""
        if src is not None:
            return sorted(e.dst for e in self.edges if e.type == rel and e.src == src)
        return sorted(e.src for e in self.edges if e.type == rel and e.dst == dst)


class _Stored:
    """A node of the in-memory graph as the driver hands a Neo4j node to `node_view`."""

    def __init__(self, label: Label, props: Mapping[str, Any]) -> None:
        self.labels = frozenset({Label.ENTITY.value, label.value})
        self._props = props

    def items(self) -> Iterable[tuple[str, Any]]:
        return self._props.items()


def _b_events(g: MarquezGraph, names: NamespaceMap) -> list[Event]:
    copy = marquez_world.event(
        (g.b_jobs, COPY),
        10,
        inputs=[{"namespace": g.lake, "name": chain(12)}],
        outputs=[_output(g.vault, SECRET, [(g.lake, chain(12))])],
    )
    own = RunStartedPayload(run_id=f"{g.b}-e1", experiment=experiment_id(g.b, EXP))
    # Before a's events: `secret` has its version when a's `mix` reads it, so the version
    # `mix` read is inferred (a USED a reader of a alone must not see).
    return [
        wrap({**copy, "eventTime": _at(9, 10).isoformat()}, names),
        _pg(g.b, 9, 20, ExperimentCreated, ExperimentCreatedPayload(key=EXP, goal="b's own")),
        _pg(g.b, 9, 21, RunStarted, own),
    ]


def _a_events(g: MarquezGraph, names: NamespaceMap) -> list[Event]:
    jobs = g.world.jobs
    mix = marquez_world.event(
        (jobs, MIX),
        45,
        inputs=[{"namespace": g.vault, "name": SECRET}, {"namespace": g.lake, "name": chain(0)}],
        outputs=[_output(g.lake, MIXED, [(g.vault, SECRET), (g.lake, chain(0))])],
    )
    drop = wrap(
        marquez_world.event((jobs, DROP), 46, outputs=[{"namespace": g.lake, "name": GONE}]), names
    )
    assert isinstance(drop, OpenLineageRunEvent)
    deleted = [drop.payload.job, *(d.dataset for d in drop.payload.outputs)]
    return [
        *(wrap(e, names) for e in [*marquez_world.events(g.world), mix]),
        drop,
        *(
            _pg(g.a, 10, 47, EntityDeleted, EntityDeletedPayload(entity=x, reason="dropped"))
            for x in deleted
        ),
        *_corpus(g.a),
    ]


def _corpus(a: str) -> list[Event]:
    """The provgraph-born part of `a`: dataset `corpus` (v1, v2), experiment `exp`, runs."""
    created = [
        _pg(a, 11, 0, ExperimentCreated, ExperimentCreatedPayload(key=EXP, goal="tokens")),
        _pg(a, 11, 1, DatasetRegistered, DatasetRegisteredPayload(name=CORPUS)),
    ]
    for minute, label in ((2, "v1"), (3, "v2")):
        version = DatasetVersionCreatedPayload(
            name=CORPUS, version=label, storage_uri=f"s3://{a}/corpus/{label}"
        )
        created.append(_pg(a, 11, minute, DatasetVersionCreated, version))
    for minute, key, label in ((4, "e1", "v1"), (5, "e2", "v2")):
        used = (RunInput(dataset_version=dataset_version_id(a, CORPUS, label), role="train"),)
        start = RunStartedPayload(
            run_id=f"{a}-{key}", experiment=experiment_id(a, EXP), inputs=used
        )
        created.append(_pg(a, 11, minute, RunStarted, start))
    done = RunCompletedPayload(run_id=f"{a}-e1", conclusion="ok")
    return [*created, _pg(a, 11, 6, RunCompleted, done)]


def _pg(project: str, hour: int, minute: int, cls: type[Event], payload: Payload) -> Event:
    return cls.create(
        project=project,
        producer=PRODUCER,
        actor="user:contract",
        payload=payload,
        occurred_at=_at(hour, minute),
    )


def marquez_graph(a: str, b: str) -> MarquezGraph:
    """The contract graph of projects `a` and `b`, folded in memory."""
    world = World(
        a,
        lake=f"s3://{a}-lake",
        jobs=f"airflow://{a}:prod",
        wide=tuple(f"file://{a}-ns{i:02d}" for i in range(marquez_world.WIDE)),
        writes=tuple(str(uuid.uuid4()) for _ in range(marquez_world.VERSIONS)),
    )
    g = MarquezGraph(world, b)
    names = NamespaceMap({**dict.fromkeys(world.namespaces, a), g.vault: b, g.b_jobs: b})
    g.events = [*_b_events(g, names), *_a_events(g, names)]
    memory = MemoryGraph()
    memory.write([project_event(e) for e in g.events])
    g.nodes = {key: node_view(_Stored(*memory.nodes[key])) for key in sorted(memory.nodes)}
    g.edges = [
        EdgeView(src, dst, rel, public(props)) for (src, rel, dst, _), props in memory.edges.items()
    ]
    return g


class InMemory:
    """A contract's test class over the graph folded in memory (projects `a` and `b`)."""

    @pytest.fixture(scope="class")
    @classmethod
    def graph(cls) -> MarquezGraph:
        return marquez_graph("a", "b")


class InNeo4j:
    """A contract's test class over the graph written into Neo4j as the projector writes it
    (its events folded and written by the writer), once for the class under projects of its
    own (every test only reads it), removed afterwards."""

    @pytest.fixture(scope="class")
    @classmethod
    def graph(cls, neo4j_driver: Driver) -> Iterator[MarquezGraph]:
        stem = f"t-{cls.__name__.lower()[:40]}-{uuid.uuid4().hex[:8]}"
        graph = marquez_graph(f"{stem}-a", f"{stem}-b")
        GraphWriter(neo4j_driver).write([project_event(e) for e in graph.events])
        yield graph
        neo4j_driver.execute_query(
            "MATCH (n) WHERE n.project IN $projects DETACH DELETE n", projects=[graph.a, graph.b]
        )


class Seen:
    """What a reader of `projects` may see of the contract graph, as the Marquez views the
    contract expects: details built from the graph's relationships, orders computed."""

    def __init__(self, graph: MarquezGraph, projects: Iterable[str]) -> None:
        self.g, self.projects = graph, frozenset(projects)

    def ok(self, node: NodeView) -> bool:
        return node.project in self.projects

    def _ends(self, rel: str, *, src: str | None = None, dst: str | None = None) -> list[NodeView]:
        """The readable nodes at the other end of `rel` from `src` (or into `dst`), by id."""
        return [n for i in self.g.linked(rel, src=src, dst=dst) if self.ok(n := self.g.nodes[i])]

    def _ref(self, version: NodeView, edge: EdgeView) -> list[model.VersionRef]:
        return [
            model.VersionRef(version, d, edge.props)
            for d in self._ends("VERSION_OF", src=version.id)
        ]

    def run(self, run_id: str) -> model.RunDetail:
        """A run's detail: its job, the versions it used and generated, what it read."""
        jobs = self._ends("PART_OF", src=run_id)
        used = [
            r
            for v in self._ends("USED", src=run_id)
            for r in self._ref(v, self.g.edge(run_id, "USED", v.id))
        ]
        made = [
            r
            for v in self._ends("GENERATED_BY", dst=run_id)
            for r in self._ref(v, self.g.edge(v.id, "GENERATED_BY", run_id))
        ]
        return model.RunDetail(
            self.g.nodes[run_id],
            jobs[0] if jobs else None,
            tuple(used),
            tuple(made),
            tuple(self._ends("READS", src=run_id)),
        )

    def versions(self, dataset: NodeView) -> list[NodeView]:
        """The live versions of `dataset`, newest first."""
        found = [v for v in self._ends("VERSION_OF", dst=dataset.id) if v.deleted_at is None]
        return sorted(
            found, key=lambda v: (v.props.get("created_at") or v.first_seen_at, v.id), reverse=True
        )

    def version(self, version: NodeView, dataset: NodeView) -> model.VersionDetail:
        runs = self._ends("GENERATED_BY", src=version.id)
        return model.VersionDetail(version, dataset, self.run(runs[0].id) if runs else None)

    def dataset(self, dataset: NodeView) -> model.DatasetDetail:
        versions = self.versions(dataset)
        return model.DatasetDetail(dataset, versions[0] if versions else None)

    def runs(self, job: NodeView) -> list[NodeView]:
        """The runs of `job`, newest start first."""
        found = self._ends("PART_OF", dst=job.id)
        return sorted(
            found, key=lambda r: (r.props.get("started_at") or r.first_seen_at, r.id), reverse=True
        )

    def job(self, job: NodeView) -> model.JobDetail:
        runs = self.runs(job)
        return model.JobDetail(job, self.run(runs[0].id) if runs else None)

    def members(self) -> dict[str, list[NodeView]]:
        """Each Marquez namespace of the live readable datasets and jobs, with them: their
        OpenLineage namespace, else (born in provgraph) their project."""
        found: dict[str, list[NodeView]] = {}
        for n in self.g.nodes.values():
            if n.type in MARQUEZ_KINDS and self.ok(n) and n.deleted_at is None:
                found.setdefault(str(n.props.get("ol_namespace") or n.project), []).append(n)
        return found

    def namespace(self, name: str) -> model.NamespaceView:
        nodes = self.members()[name]
        return model.NamespaceView(
            name,
            min(str(n.first_seen_at) for n in nodes),
            max(str(n.last_event_at) for n in nodes),
            min(str(n.project) for n in nodes),
        )
