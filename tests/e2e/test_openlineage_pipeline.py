"""OpenLineage as really emitted, end to end: an Airflow-style pipeline sent by the real
openlineage-python client (HTTP transport) to the running ingest service, then a training run
and a model version recorded with provgraph's SDK, read back through GraphQL, the
Marquez-compatible REST API and Marquez's own Python client (marquez-python, unchanged).

No event carries a `version` facet, the events arrive out of order (ends before starts, the
third task before the second) and one arrives twice. provgraph infers which version each task
read (the latest written before the task started, docs/openlineage.md), so the lineage of the
final dataset reaches the raw data through every task, and leaves out the failed attempt and
the raw version written while the first task ran. The pipeline: tests/support/ol_pipeline.py.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from e2e_helpers import admin_token, await_applied, bearer, start_apps
from neo4j import Driver
from openlineage.client import OpenLineageClient
from openlineage.client.transport.http import ApiKeyTokenProvider, HttpConfig, HttpTransport
from support.ol_pipeline import (
    BY_KEY,
    DATASETS,
    DISTINCT_EVENTS,
    FINAL,
    PIPELINE_TASKS,
    RAW_TOKENS,
    READS_OF,
    TASKS,
    Ids,
    OlPipeline,
)

from provgraph.infra.apps import Apps
from provgraph.schemas.graph import INFERRED, INFERRED_LATEST_AT_RUN_START

pytestmark = pytest.mark.timeout(600)

DEPTH = 16  # the chain from the final dataset to the raw one is 11 hops; room to spare
WAIT_S = 120


@dataclass
class Emitted:
    """The running stack, the pipeline sent to it, and what the training run recorded."""

    apps: Apps
    token: str
    ids: Ids
    project: str  # the training run's
    final_version: str = ""
    training_run: str = ""
    model_version: str = ""

    @property
    def pipeline(self) -> OlPipeline:
        return self.ids.pipeline

    def graphql(self, query: str, **variables: Any) -> dict[str, Any]:
        """The `data` of a GraphQL answer (an answer with errors fails the test)."""
        body = json.dumps({"query": query, "variables": variables}).encode()
        url = f"{self.apps.settings.query_url}/graphql"
        request = urllib.request.Request(url, body, bearer(self.token), method="POST")
        with urllib.request.urlopen(request, timeout=60) as response:
            answer: dict[str, Any] = json.loads(response.read())
        assert not answer.get("errors"), answer["errors"]
        data: dict[str, Any] = answer["data"]
        return data

    def rest(self, path: str, **params: Any) -> tuple[int, Any]:
        """(status, JSON body) of a GET on the query service."""
        query = urllib.parse.urlencode(params)
        url = f"{self.apps.settings.query_url}{path}?{query}"
        request = urllib.request.Request(url, headers=bearer(self.token))
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()


# --- the stack, the pipeline and the training run ------------------------------------------


@pytest.fixture(scope="module")
def emitted(
    tmp_path_factory: pytest.TempPathFactory, endpoints: Any, neo4j_driver: Driver
) -> Iterator[Emitted]:
    """One stack for the module: the pipeline sent, projected, and a model trained on it."""
    pipeline = OlPipeline()
    ids = Ids(pipeline)
    name = f"t-olpipe-{pipeline.tag}"
    with pytest.MonkeyPatch.context() as mp:
        home = tmp_path_factory.mktemp("ol-stack")
        apps = start_apps(home, endpoints, name, mp, neo4j_driver)
        stack = Emitted(apps, admin_token(apps), ids, project=name)
        try:
            _send_pipeline(stack)
            await_applied(neo4j_driver, ids.job_project, DISTINCT_EVENTS)
            stack.final_version = _latest_version(stack, ids.dataset(FINAL))
            _train(stack, tmp_path_factory.mktemp("spool"))
            _await_model(stack)
            yield stack
        finally:
            apps.down()
            projects = [ids.data_project, ids.job_project, name]
            neo4j_driver.execute_query(
                "MATCH (n) WHERE n.project IN $ps DETACH DELETE n", ps=projects
            )


def _send_pipeline(stack: Emitted) -> None:
    """Through the real client, as Airflow's integration sends: one event per request."""
    auth = ApiKeyTokenProvider({"apiKey": stack.token})  # sent as "Authorization: Bearer"
    config = HttpConfig(url=stack.apps.settings.ingest_url, auth=auth)
    client = OpenLineageClient(transport=HttpTransport(config))
    for event in stack.pipeline.as_sent():
        client.emit(event)  # raises on an answer other than 2xx


_VERSIONS = "query($id: ID!) { node(id: $id) { ... on Dataset { versions { id } } } }"


def _latest_version(stack: Emitted, dataset: str) -> str:
    """The final dataset's one version, looked up in the graph (its id is `...@run-<runId>`)."""
    versions = stack.graphql(_VERSIONS, id=dataset)["node"]["versions"]
    found = [v["id"] for v in versions]
    assert found == [stack.ids.version(FINAL, "tokenize")]
    return str(found[0])


def _train(stack: Emitted, spool: Path) -> None:
    """A training run on the final version, with a checkpoint and a model version (SDK)."""
    from provgraph.client import Emitter
    from provgraph.client import HttpTransport as ProvgraphHttp

    transport = ProvgraphHttp(stack.apps.settings.ingest_url, token=stack.token)
    with Emitter(transport, project=stack.project, spool_dir=spool) as emitter:
        inputs = [(stack.final_version, "train")]
        with emitter.run(experiment=None, params={"lr": 3e-4}, inputs=inputs) as run:
            run.log_metrics(1, loss=2.0)
            ckpt = run.checkpoint(1, "s3://lake/ckpt/1/", checksum="sha256:" + "1" * 64)
            stack.model_version = run.register_model("tok-lm", "1.0.0", checkpoint=ckpt)
        assert emitter.flush(30)
    stack.training_run = run.subject


_IMPACT = """
query($id: ID!) {
  impact(id: $id) { node { id type } path { nodes { id } edges { from to type properties } } }
}
"""


def _await_model(stack: Emitted) -> None:
    """Until the model version is downstream of the final version (the SDK's events folded)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        items = stack.graphql(_IMPACT, id=stack.final_version)["impact"]
        if any(item["node"]["id"] == stack.model_version for item in items):
            return
        time.sleep(0.5)
    raise AssertionError(f"{stack.model_version} not downstream of {stack.final_version}")


# --- reading it back ----------------------------------------------------------------------

_LINEAGE = """
query($id: ID!, $depth: Int) {
  lineage(id: $id, direction: %s, depth: $depth) {
    root { id }
    nodes { id type }
    edges { from to type properties }
    truncated
  }
}
"""


def _lineage(stack: Emitted, node: str, direction: str = "UPSTREAM", depth: int = DEPTH) -> Any:
    found = stack.graphql(_LINEAGE % direction, id=node, depth=depth)["lineage"]
    assert found is not None and not found["truncated"]
    return found


def _ids(lineage: Any) -> set[str]:
    return {lineage["root"]["id"], *(n["id"] for n in lineage["nodes"])}


def _chain(ids: Ids) -> set[str]:
    """Every node between the final dataset and the raw one: the versions each task read and
    wrote, the runs, their datasets and jobs."""
    runs = ("export", *PIPELINE_TASKS)
    versions = {ids.version(BY_KEY[key].outputs[0], key) for key in runs}
    return (
        versions
        | {ids.run(key) for key in runs}
        | {ids.job(key) for key in runs}
        | {ids.dataset(name) for name in DATASETS}
    )


def _left_out(ids: Ids) -> set[str]:
    """What the final dataset is not made of: the failed attempt and what it wrote, and the
    raw version written after the first task had started."""
    return {
        ids.run("dedup_1"),
        ids.version(BY_KEY["dedup_1"].outputs[0], "dedup_1"),
        ids.run("export_late"),
        ids.version(RAW_TOKENS, "export_late"),
    }


def test_upstream_of_the_final_version_reaches_the_raw_data_through_every_task(
    emitted: Emitted,
) -> None:
    reached = _ids(_lineage(emitted, emitted.final_version))
    assert _chain(emitted.ids) - reached == set()
    assert _left_out(emitted.ids) & reached == set()


def test_upstream_of_the_final_dataset_walks_through_its_versions(emitted: Emitted) -> None:
    reached = _ids(_lineage(emitted, emitted.ids.dataset(FINAL)))
    assert _chain(emitted.ids) - reached == set()
    assert _left_out(emitted.ids) & reached == set()


def test_inferred_links_are_marked_and_declared_ones_are_not(
    emitted: Emitted, neo4j_driver: Driver
) -> None:
    ids = emitted.ids
    edges = _lineage(emitted, emitted.training_run)["edges"]
    used = {(e["from"], e["to"]): e["properties"] for e in edges if e["type"] == "USED"}
    for key, (name, writer) in READS_OF.items():
        if key == "dedup_1":
            continue  # not upstream of the training run: checked below
        props = used.get((ids.run(key), ids.version(name, writer)))
        assert props is not None, f"{key} reads no version of {name}: {sorted(used)}"
        assert (props.get("role"), props.get(INFERRED)) == ("input", INFERRED_LATEST_AT_RUN_START)
    declared = used[(emitted.training_run, emitted.final_version)]
    assert declared.get("role") == "train" and INFERRED not in declared
    failed = _lineage(emitted, ids.run("dedup_1"), depth=1)["edges"]
    assert [(e["to"], e["properties"].get(INFERRED)) for e in failed if e["type"] == "USED"] == [
        (ids.version(*READS_OF["dedup_1"]), INFERRED_LATEST_AT_RUN_START)
    ]
    _assert_reads(neo4j_driver, ids)


def _assert_reads(driver: Driver, ids: Ids) -> None:
    """Each task run READS the dataset it named, once (the link the inference starts from)."""
    runs = [ids.run(key) for key in READS_OF]
    records, _, _ = driver.execute_query(
        "MATCH (r:Run)-[:READS]->(d:Dataset) WHERE r.id IN $runs "
        "RETURN r.id AS run, collect(d.id) AS datasets",
        runs=runs,
    )
    found = {r["run"]: sorted(r["datasets"]) for r in records}
    assert found == {ids.run(key): [ids.dataset(name)] for key, (name, _w) in READS_OF.items()}


def test_impact_of_the_raw_data_reaches_the_training_run_and_the_model(emitted: Emitted) -> None:
    ids = emitted.ids
    for start in (ids.version(RAW_TOKENS, "export"), ids.dataset(RAW_TOKENS)):
        items = emitted.graphql(_IMPACT, id=start)["impact"]
        paths = {item["node"]["id"]: item["path"] for item in items}
        assert emitted.model_version in paths, f"impact of {start}: {sorted(paths)}"
        on_path = [n["id"] for n in paths[emitted.model_version]["nodes"]]
        assert emitted.training_run in on_path
        assert {ids.run(key) for key in PIPELINE_TASKS} <= set(on_path)
    late = emitted.graphql(_IMPACT, id=ids.version(RAW_TOKENS, "export_late"))["impact"]
    assert late == []  # nobody read it: it was written after ingest_raw had started


def test_marquez_lineage_answers_with_marquez_ids(emitted: Emitted) -> None:
    ids = emitted.ids
    root = ids.marquez_dataset(FINAL)
    status, answer = emitted.rest("/api/v1/lineage", nodeId=root, depth=DEPTH)
    assert status == 200, answer
    graph = answer["graph"]
    found = {node["id"] for node in graph}
    assert graph[0]["id"] == root
    jobs = {ids.marquez_job(key) for key in ("export", *PIPELINE_TASKS)}
    assert {ids.marquez_dataset(name) for name in DATASETS} | jobs <= found
    provgraph_ids = {ids.dataset(name) for name in DATASETS} | {ids.job(t.key) for t in TASKS}
    assert provgraph_ids & found == set()  # OpenLineage-born nodes answer with Marquez ids
    for node in graph:
        for edge in (*node["inEdges"], *node["outEdges"]):
            assert {edge["origin"], edge["destination"]} <= found, edge


def test_an_id_from_the_marquez_answer_can_be_asked_about(emitted: Emitted) -> None:
    ids = emitted.ids
    _status, first = emitted.rest("/api/v1/lineage", nodeId=ids.marquez_dataset(FINAL), depth=6)
    job = ids.marquez_job("tokenize")
    assert job in {node["id"] for node in first["graph"]}
    status, answer = emitted.rest("/api/v1/lineage", nodeId=job, depth=4)
    assert status == 200, answer
    found = {node["id"] for node in answer["graph"]}
    assert answer["graph"][0]["id"] == job
    # As in Marquez, the lineage around a job holds the datasets it read and wrote.
    wanted = {ids.marquez_dataset(name) for name in (*BY_KEY["tokenize"].inputs, FINAL)}
    assert wanted - found == set(), f"around {job}: {sorted(found)}"


def test_marquez_client_lists_namespaces_datasets_jobs_and_runs(emitted: Emitted) -> None:
    from marquez_client import MarquezClient

    pipeline = emitted.pipeline
    client = MarquezClient(url=emitted.apps.settings.query_url, api_key=emitted.token)
    for namespace in (pipeline.data_namespace, pipeline.job_namespace):
        assert client.get_namespace(namespace)["name"] == namespace
    assert {pipeline.data_namespace, pipeline.job_namespace} <= _all_namespaces(client)
    datasets = client.list_datasets(pipeline.data_namespace)["datasets"]
    assert sorted(d["name"] for d in datasets) == sorted(DATASETS)
    jobs = client.list_jobs(pipeline.job_namespace)["jobs"]
    assert sorted(j["name"] for j in jobs) == sorted({t.job for t in TASKS})
    runs = client.list_job_runs(pipeline.job_namespace, BY_KEY["dedup_1"].job)["runs"]
    states = {r["id"]: r["state"] for r in runs}
    assert states == {
        pipeline.run_id("dedup_1"): "FAILED",
        pipeline.run_id("dedup_2"): "COMPLETED",
    }
    dataset = client.get_dataset(pipeline.data_namespace, FINAL)
    assert dataset["id"] == {"namespace": pipeline.data_namespace, "name": FINAL}


def _all_namespaces(client: Any) -> set[str]:
    """Every namespace the client can list, page by page (the shared graph holds others)."""
    names: set[str] = set()
    for page in range(100):
        found = client.list_namespaces(limit=100, offset=page * 100)["namespaces"]
        names |= {n["name"] for n in found}
        if len(found) < 100:
            break
    return names
