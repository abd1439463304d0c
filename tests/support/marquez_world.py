"""A Marquez world several times larger than a small service's ceilings, written as the
projector writes OpenLineage (wrapped, folded, written into the real Neo4j), for the tests of
Marquez's read parameters (`tests/integration/query/test_marquez_client_limits.py`).

    LAKE:  c00 ─step-01─▶ c01 ─step-02─▶ … ─step-12─▶ c12   (column `v` from the one before)
           tokens: 13 versions, each written by a run of `write/tokens`
    WIDE:  13 more namespaces, one dataset each (t00 … t12, written by `spread`)
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from neo4j import Driver

from provgraph.ingest.openlineage import NamespaceMap, wrap
from provgraph.ingest.projection import project_event
from provgraph.ingest.projector.writer import GraphWriter

HOPS, VERSIONS, WIDE = 12, 13, 13
PRODUCER = "https://example.com/pipelines/limits"
SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
FACET_URL = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json"
TOKENS, WRITE, SPREAD = "tokens", "write/tokens", "spread"


def chain(k: int) -> str:
    return f"c{k:02d}"


def step(k: int) -> str:
    return f"chain/step-{k:02d}"


@dataclass(frozen=True)
class World:
    """The names of one test's world and the runIds of `write/tokens`."""

    project: str
    lake: str
    jobs: str
    wide: tuple[str, ...]
    writes: tuple[str, ...]  # the runIds of `write/tokens`, one a version of `tokens`

    @property
    def namespaces(self) -> set[str]:
        return {self.lake, self.jobs, *self.wide}

    @property
    def datasets(self) -> set[str]:
        return {TOKENS, *(chain(k) for k in range(HOPS + 1))}

    @property
    def job_names(self) -> set[str]:
        return {WRITE, SPREAD, *(step(k) for k in range(1, HOPS + 1))}


def event(
    job: tuple[str, str], minute: int, run: str | None = None, **io: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": f"2026-02-01T10:{minute:02d}:00+00:00",
        "run": {"runId": run or str(uuid.uuid4()), "facets": {}},
        "job": {"namespace": job[0], "name": job[1], "facets": {}},
        "producer": PRODUCER,
        "schemaURL": SCHEMA_URL,
        "inputs": io.get("inputs", []),
        "outputs": io.get("outputs", []),
    }


def _facet(url: str, **fields: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": url, **fields}


def _chain_output(lake: str, k: int) -> dict[str, Any]:
    source = {"namespace": lake, "name": chain(k - 1), "field": "v"}
    return {
        "namespace": lake,
        "name": chain(k),
        "facets": {
            "schema": _facet(f"{PRODUCER}/schema", fields=[{"name": "v", "type": "string"}]),
            "columnLineage": _facet(FACET_URL, fields={"v": {"inputFields": [source]}}),
        },
    }


def events(w: World) -> list[dict[str, Any]]:
    events = [
        event(
            (w.jobs, step(k)),
            k,
            inputs=[{"namespace": w.lake, "name": chain(k - 1)}],
            outputs=[_chain_output(w.lake, k)],
        )
        for k in range(1, HOPS + 1)
    ]
    version = _facet(f"{PRODUCER}/version")
    events += [
        event(
            (w.jobs, WRITE),
            20 + i,
            w.writes[i - 1],
            outputs=[
                {
                    "namespace": w.lake,
                    "name": TOKENS,
                    "facets": {"version": {**version, "datasetVersion": f"v{i:02d}"}},
                }
            ],
        )
        for i in range(1, VERSIONS + 1)
    ]
    # Distinct names: the namespaces map to one project, where a name is one dataset.
    wide = [{"namespace": ns, "name": f"t{i:02d}"} for i, ns in enumerate(w.wide)]
    return [*events, event((w.jobs, SPREAD), 40, outputs=wide)]


def write(driver: Driver, events: list[dict[str, Any]], names: NamespaceMap) -> None:
    GraphWriter(driver).write([project_event(wrap(e, names)) for e in events])


def new_world(driver: Driver, project: str) -> World:
    """The world of `project`, written: every namespace of it maps to `project`."""
    w = World(
        project,
        lake=f"s3://{project}-lake",
        jobs=f"airflow://{project}:prod",
        wide=tuple(f"file://{project}-ns{i:02d}" for i in range(WIDE)),
        writes=tuple(str(uuid.uuid4()) for _ in range(VERSIONS)),
    )
    write(driver, events(w), NamespaceMap(dict.fromkeys(w.namespaces, project)))
    return w
