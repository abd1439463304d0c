"""OpenLineage events that name datasets they do not write, for the tests of what a reference
keeps (docs/openlineage.md, "Ids"): a source only ever read is a Marquez dataset, and what an
event that wrote a dataset says of its names wins over what any reader says.

Two shapes, each a few events whose every order must fold to one graph:

- `cross_project`: a run of the `jobs` namespace reads `(s3://raw, crawl/x)` (project `raw`,
  another project than the job's) and a run of the `raw` namespace writes it; two more sources
  are only ever read, `seed` and `lexicon` (with a version facet).
- `aliases`: in one project (a namespace map sends `lake` and `lake-alias` to it), JobEvents name
  datasets under both namespaces and a run writes one of them under `lake`, earlier than the
  last JobEvent: the writer's names win; between two references, the later one's.
"""

from __future__ import annotations

from typing import Any

from provgraph.ingest.openlineage import NamespaceMap, wrap
from provgraph.schemas import Event

PRODUCER = "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python"
_SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/"
READER, WRITER = "5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "6e2d3c4b-5f60-4b7c-9d8e-0f1a2b3c4d5e"
CROSS = NamespaceMap({"jobs": "jobs", "s3://raw": "raw"})


def dataset(namespace: str, name: str, version: str | None = None) -> dict[str, Any]:
    """An OpenLineage dataset, with a documentation facet (and a version facet when given)."""
    doc = {"_producer": PRODUCER, "_schemaURL": f"{_SCHEMA}Doc", "description": "said by me"}
    facets: dict[str, Any] = {"documentation": doc}
    if version is not None:
        url = f"{_SCHEMA}DatasetVersionDatasetFacet"
        facets["version"] = {"_producer": PRODUCER, "_schemaURL": url, "datasetVersion": version}
    return {"namespace": namespace, "name": name, "facets": facets}


def run_event(
    run: str, job: tuple[str, str], minute: int, **io: list[dict[str, Any]]
) -> dict[str, Any]:
    """A COMPLETE event of `run` of `job` (namespace, name) at 12:`minute`."""
    return {
        "eventType": "COMPLETE",
        "eventTime": f"2024-05-01T12:{minute:02d}:00Z",
        "producer": PRODUCER,
        "schemaURL": f"{_SCHEMA}RunEvent",
        "run": {"runId": run},
        "job": {"namespace": job[0], "name": job[1]},
        "inputs": io.get("inputs", []),
        "outputs": io.get("outputs", []),
    }


def job_event(job: tuple[str, str], minute: int, inputs: list[dict[str, Any]]) -> dict[str, Any]:
    """A JobEvent of `job` naming `inputs`, at 12:`minute`."""
    return {
        "eventTime": f"2024-05-01T12:{minute:02d}:00Z",
        "producer": PRODUCER,
        "schemaURL": f"{_SCHEMA}JobEvent",
        "job": {"namespace": job[0], "name": job[1]},
        "inputs": inputs,
    }


def cross_project() -> list[Event]:
    """The reader (project `jobs`, 12:30) and the writer of crawl/x (project `raw`, 12:00)."""
    reader = run_event(
        READER,
        ("jobs", "tokenize"),
        30,
        inputs=[
            dataset("s3://raw", "crawl/x"),
            dataset("s3://raw", "seed"),
            dataset("s3://raw", "lexicon", version="v3"),
        ],
        outputs=[dataset("jobs", "tokens")],
    )
    writer = run_event(WRITER, ("s3://raw", "crawl"), 0, outputs=[dataset("s3://raw", "crawl/x")])
    return [wrap(reader, CROSS), wrap(writer, CROSS)]


def aliases(project: str) -> list[Event]:
    """In `project`: JobEvents at 12:10 and 12:30 and a run at 12:00 writing `corpus`."""
    names = NamespaceMap({"lake": project, "lake-alias": project, "jobs": project})
    early = job_event(("jobs", "etl"), 10, [dataset("lake-alias", "src")])
    late = job_event(("jobs", "etl"), 30, [dataset("lake", "src"), dataset("lake-alias", "corpus")])
    writer = run_event(WRITER, ("jobs", "write"), 0, outputs=[dataset("lake", "corpus")])
    return [wrap(e, names) for e in (early, late, writer)]
