"""Projection of OpenLineage events: jobs, runs, their inputs and outputs, parent runs.

(Run)-[:PART_OF]->(Job); (Run)-[:USED {role: 'input'}]->(DatasetVersion) for an input with a
version facet, (Run)-[:READS]->(Dataset) for one without (the version read is then inferred by
the writers: `projection.resolution`, asked for by `project_event`);
(DatasetVersion)-[:GENERATED_BY]->(Run); (DatasetVersion)-[:VERSION_OF]->(Dataset);
(Run)-[:CHILD_OF]->(parent Run)-[:PART_OF]->(parent Job). Every event adds its inputs and
outputs (a union), and run status only moves forward, so START, RUNNING, COMPLETE, FAIL and
ABORT converge in any order; COMPLETE alone still yields a completed run. Inputs of another
project than the job's are references only: their facets are not kept, but the names they are
known by are (OpenLineage namespace and name, Marquez id), so a dataset only ever read (a
source) is a Marquez dataset like one written; a reference's names never override what an
event that wrote the dataset said (`Ctx.ref`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from provgraph.ingest.projection.base import Ctx, projects, status
from provgraph.ingest.projection.mutations import Mutation
from provgraph.ingest.projection.runs import RUN_RANK
from provgraph.schemas import parse_id
from provgraph.schemas.events.openlineage import (
    OpenLineageDataset,
    OpenLineageDatasetEvent,
    OpenLineageJobEvent,
    OpenLineageRunEvent,
    RunState,
)
from provgraph.schemas.graph import MARQUEZ_ID, Rel
from provgraph.schemas.storage import Value, encode_json, json_key

# OpenLineage eventType -> provgraph run status (OTHER carries metadata, no state change).
STATE_STATUS: dict[RunState, str] = {
    RunState.START: "running",
    RunState.RUNNING: "running",
    RunState.COMPLETE: "completed",
    RunState.FAIL: "failed",
    RunState.ABORT: "aborted",
}
_DOC = {"description": "description"}
_STARTS = (RunState.START, RunState.RUNNING)
_ENDS = (RunState.COMPLETE, RunState.FAIL, RunState.ABORT)
MAX_MARQUEZ_ID_BYTES = 4000
"""Longest `marquez_id` kept (UTF-8): an indexed value must fit Neo4j's index key limit."""


def _facets(holder: Any) -> Mapping[str, Any]:
    facets = holder.get("facets") if isinstance(holder, Mapping) else None
    return facets if isinstance(facets, Mapping) else {}


def _kept(facet: Any, name: str, scalars: Mapping[str, str]) -> dict[str, Value | None]:
    """`<name>_json` (the whole facet) plus the scalar fields named in `scalars`."""
    if not isinstance(facet, Mapping):
        return {}
    out: dict[str, Value | None] = {json_key(name): encode_json(facet)}
    for field, prop in scalars.items():
        value = facet.get(field)
        if isinstance(value, str | int | float | bool):
            out[prop] = value
    return out


def marquez_id(kind: str, namespace: str, name: str) -> str | None:
    """``<kind>:<namespace>:<name>``, the id Marquez gives an OpenLineage dataset or job
    (None when too long to index)."""
    text = f"{kind}:{namespace}:{name}"
    return text if len(text.encode("utf-8", "surrogatepass")) <= MAX_MARQUEZ_ID_BYTES else None


def dataset_props(dataset: Mapping[str, Any]) -> dict[str, Value | None]:
    """The kept dataset facets: schema, dataSource, documentation, columnLineage."""
    facets = _facets(dataset)
    props = _kept(facets.get("schema"), "schema", {})
    fields = (facets.get("schema") or {}).get("fields") or []
    names = tuple(str(f.get("name")) for f in fields if isinstance(f, Mapping))
    props["schema_fields"] = names or None
    source = {"name": "datasource_name", "uri": "datasource_uri"}
    props.update(_kept(facets.get("dataSource"), "datasource", source))
    props.update(
        _kept(facets.get("documentation"), "documentation", {"description": "description"})
    )
    props.update(_kept(facets.get("columnLineage"), "column_lineage", {}))
    return props


def job_props(job: Mapping[str, Any]) -> dict[str, Value | None]:
    """Job name, namespace and the kept job facets: documentation, sql."""
    facets = _facets(job)
    namespace, name = job.get("namespace"), job.get("name")
    props: dict[str, Value | None] = {"name": name, "ol_namespace": namespace}
    if isinstance(namespace, str) and isinstance(name, str):
        props[MARQUEZ_ID] = marquez_id("job", namespace, name)
    props.update(
        _kept(facets.get("documentation"), "documentation", {"description": "description"})
    )
    props.update(_kept(facets.get("sql"), "sql", {"query": "sql_query"}))
    return props


def run_props(run: Mapping[str, Any]) -> dict[str, Value | None]:
    """The kept run facets: nominalTime, errorMessage."""
    facets = _facets(run)
    nominal = {"nominalStartTime": "nominal_start_time", "nominalEndTime": "nominal_end_time"}
    error = {"message": "error_message", "programmingLanguage": "error_language"}
    props = _kept(facets.get("nominalTime"), "nominal_time", nominal)
    props.update(_kept(facets.get("errorMessage"), "error_message", error))
    if json_key("error_message") in props:
        props["error_stack_trace"] = facets["errorMessage"].get("stackTrace")
    return props


def _by_key(items: Any) -> dict[tuple[str, str], Mapping[str, Any]]:
    return {(str(d["namespace"]), str(d["name"])): d for d in items or () if isinstance(d, dict)}


def _dataset_names(ds: OpenLineageDataset) -> dict[str, Value | None]:
    """What a dataset is called, the same in every event that names it: its provgraph name,
    OpenLineage namespace and name, and Marquez id."""
    return {
        "name": ds.dataset.split("/", 1)[1],
        "ol_namespace": ds.namespace,
        "ol_name": ds.name,
        MARQUEZ_ID: marquez_id("dataset", ds.namespace, ds.name),
    }


def _version_names(ds: OpenLineageDataset, version: str) -> dict[str, Value | None]:
    """What a version of `ds` is called: the dataset's names (no Marquez id) and its label."""
    names = {k: v for k, v in _dataset_names(ds).items() if k != MARQUEZ_ID}
    return {**names, "version": version.rsplit("@", 1)[1]}


def _dataset(
    ctx: Ctx, ds: OpenLineageDataset, raw: Mapping[str, Any], *, defining: bool
) -> list[Mutation]:
    """The Dataset node, and the DatasetVersion node VERSION_OF it when a version is known."""
    facets = dataset_props(raw)
    props = {**_dataset_names(ds), **facets}
    out: list[Mutation] = [ctx.node(ds.dataset, defining=defining, props=props)]
    if ds.version is not None:
        version = {**_version_names(ds, ds.version), **facets}
        mins = {"created_at": ctx.time} if defining else None
        out.append(ctx.node(ds.version, defining=defining, props=version, mins=mins))
        out.append(ctx.edge(ds.version, Rel.VERSION_OF, ds.dataset))
    return out


def _named(ctx: Ctx, ds: OpenLineageDataset) -> list[Mutation]:
    """References to a dataset (and its version) by the names the event gives them."""
    out: list[Mutation] = [ctx.ref(ds.dataset, _dataset_names(ds))]
    if ds.version is not None:
        out.append(ctx.ref(ds.version, _version_names(ds, ds.version)))
        out.append(ctx.edge(ds.version, Rel.VERSION_OF, ds.dataset))
    return out


def _input(ctx: Ctx, ds: OpenLineageDataset, raw: Mapping[str, Any]) -> list[Mutation]:
    """An input of the event's own project keeps its facets; one of another project is only
    referenced by its names: reading a dataset gives no right to describe it
    (`projection.ownership`)."""
    if parse_id(ds.dataset).project == ctx.event.project:
        return _dataset(ctx, ds, raw, defining=False)
    return _named(ctx, ds)


@projects(OpenLineageRunEvent)
def _run_event(event: OpenLineageRunEvent) -> list[Mutation]:
    ctx, p, me = Ctx(event), event.payload, event.subject
    raw: dict[str, Any] = dict(p.event)
    state = STATE_STATUS.get(p.state) if p.state else None
    node = ctx.node(
        me,
        defining=True,
        props={"run_key": p.run_id, "ol_producer": event.producer, **run_props(raw["run"])},
        mins={"started_at": ctx.time if p.state in _STARTS else None},
        maxs={"ended_at": ctx.time if p.state in _ENDS else None},
        versioned=status(RUN_RANK[state], state) if state else None,
    )
    out: list[Mutation] = [node, ctx.node(p.job, defining=True, props=job_props(raw["job"]))]
    out.append(ctx.edge(me, Rel.PART_OF, p.job))
    inputs, outputs = _by_key(raw.get("inputs")), _by_key(raw.get("outputs"))
    for ds in p.inputs:
        out += _input(ctx, ds, inputs.get((ds.namespace, ds.name), {}))
        if ds.version is not None:
            out.append(ctx.edge(me, Rel.USED, ds.version, key={"role": "input"}))
        else:  # which version it read is inferred (`projection.resolution`)
            out.append(ctx.edge(me, Rel.READS, ds.dataset))
    for ds in p.outputs:
        out += _dataset(ctx, ds, outputs.get((ds.namespace, ds.name), {}), defining=True)
        if ds.version is not None:
            out.append(ctx.edge(ds.version, Rel.GENERATED_BY, me))
    out += ctx.linked(me, Rel.CHILD_OF, p.parent_run)
    if p.parent_run is not None and p.parent_job is not None:
        names = _parent_job_names(raw["run"])
        out += [ctx.ref(p.parent_job, names), ctx.edge(p.parent_run, Rel.PART_OF, p.parent_job)]
    return out


def _parent_job_names(run: Mapping[str, Any]) -> dict[str, Value | None]:
    """What the `parent` run facet calls the parent job: its name, namespace and Marquez id."""
    parent = _facets(run).get("parent")
    job = parent.get("job") if isinstance(parent, Mapping) else None
    namespace, name = (
        job.get(k) if isinstance(job, Mapping) else None for k in ("namespace", "name")
    )
    if not isinstance(namespace, str) or not isinstance(name, str):
        return {}
    return {"name": name, "ol_namespace": namespace, MARQUEZ_ID: marquez_id("job", namespace, name)}


@projects(OpenLineageJobEvent)
def _job_event(event: OpenLineageJobEvent) -> list[Mutation]:
    ctx, p = Ctx(event), event.payload
    raw: dict[str, Any] = dict(p.event)
    props = {
        **job_props(raw["job"]),
        "input_datasets": tuple(d.dataset for d in p.inputs) or None,
        "output_datasets": tuple(d.dataset for d in p.outputs) or None,
    }
    out: list[Mutation] = [ctx.node(p.job, defining=True, props=props)]
    return out + [ctx.ref(d.dataset, _dataset_names(d)) for d in (*p.inputs, *p.outputs)]


@projects(OpenLineageDatasetEvent)
def _dataset_event(event: OpenLineageDatasetEvent) -> list[Mutation]:
    ctx, p = Ctx(event), event.payload
    raw: dict[str, Any] = dict(p.event)
    return _dataset(ctx, p.dataset, raw["dataset"], defining=True)
