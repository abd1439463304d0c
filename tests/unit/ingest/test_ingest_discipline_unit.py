"""Ingest's records-discipline refusals over its HTTP layer with in-memory ports: a recorded
environment changed under its key (409 naming the key and the fields), a run.completed
without the conclusion its project requires (422 naming the run), a record without another
element it requires (422 ``record_incomplete`` naming what is missing), and what stays
accepted."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from support.memory_stores import MemoryPayloadHashes, MemoryPrincipals, memory_graph_reads
from support.record_policy import policy as policy_of
from support.record_policy import started, version

from provgraph.authz import Principal, hash_token
from provgraph.client.eventlog import MemoryEventLog
from provgraph.ingest.app import create_app
from provgraph.ingest.projection import project_event
from provgraph.ingest.projection.discipline import RecordFacts
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import (
    EnvironmentSnapshotRecorded,
    Event,
    ProjectPolicySet,
    RunCompleted,
    parse_event,
)
from provgraph.schemas.events.environment import EnvironmentSnapshotRecordedPayload
from provgraph.schemas.events.policy import policy_payload
from provgraph.schemas.events.run import RunCompletedPayload
from provgraph.schemas.records import RecordKind

pytestmark = pytest.mark.unit

TOKEN = "pgt_unit-discipline"
PRINCIPALS = MemoryPrincipals(
    {hash_token(TOKEN): Principal("service:t", roles={"p": frozenset({"writer", "admin"})})}
)
KEY = "trainer-2024-05"


def _make(model: type[Event], payload: Any) -> dict[str, Any]:
    event = model.create(project="p", producer="https://e.com/t", actor="u:a", payload=payload)
    return _data(event)


def env(**changes: Any) -> dict[str, Any]:
    fields = {"key": KEY, "python_version": "3.11.8", "packages": {"numpy": "1.26.4"}, **changes}
    return _make(EnvironmentSnapshotRecorded, EnvironmentSnapshotRecordedPayload(**fields))


def completed(run: str, conclusion: str | None = None) -> dict[str, Any]:
    return _make(RunCompleted, RunCompletedPayload(run_id=run, conclusion=conclusion))


def policy(required: bool) -> dict[str, Any]:
    return _make(ProjectPolicySet, policy_payload(require_conclusion=required))


class Ingest:
    """An ingest app whose graph is a `MemoryGraph` the test folds events into."""

    def __init__(
        self,
        client: TestClient,
        graph: MemoryGraph,
        log: MemoryEventLog,
        hashes: MemoryPayloadHashes,
    ) -> None:
        self.client, self.graph, self.log, self.hashes = client, graph, log, hashes

    def post(self, body: Any) -> tuple[int, dict[str, Any]]:
        answer = self.client.post("/v1/events", content=json.dumps(body).encode())
        return answer.status_code, answer.json()

    def applied(self, *events: dict[str, Any]) -> None:
        """Fold `events` into the graph, as the projector would have."""
        parsed = [parse_event(e) for e in events]
        self.graph.write([project_event(e) for e in parsed])
        self.hashes.apply(parsed)


@pytest.fixture()
def ingest() -> Iterator[Ingest]:
    graph, log, hashes = MemoryGraph(), MemoryEventLog(partitions=2), MemoryPayloadHashes()
    app = create_app(
        IngestSettings(),
        event_log=log,
        principals=PRINCIPALS,
        **memory_graph_reads(graph),
        payload_hashes=hashes,
    )
    with TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        yield Ingest(client, graph, log, hashes)


def test_a_changed_environment_is_409_naming_the_key_and_the_fields(ingest: Ingest) -> None:
    ingest.applied(env())
    status, body = ingest.post([completed("r0", "fine"), env(packages={"numpy": "2.0.0"})])
    assert status == 409
    error = body["error"]
    assert error["code"] == "environment_changed"
    assert error["details"] == {
        "index": 1,
        "environment": f"environment:p/{KEY}",
        "key": KEY,
        "differing": ["packages"],
    }
    assert "based_on: environment:p/trainer-2024-05" in error["message"]
    assert ingest.log.events == []  # nothing of the batch


def test_the_same_environment_again_is_accepted(ingest: Ingest) -> None:
    first = env()
    ingest.applied(first)
    assert ingest.post([first, env()])[0] == 202  # the same event, and the same contents anew
    assert len(ingest.log.events) == 2


def test_a_change_within_one_batch_is_refused_too(ingest: Ingest) -> None:
    status, body = ingest.post([env(), env(python_version="3.12.1")])
    assert (status, body["error"]["details"]["differing"]) == (409, ["python_version"])


def test_the_policy_refuses_a_run_completed_without_conclusion(ingest: Ingest) -> None:
    assert ingest.post(completed("r1"))[0] == 202  # no policy yet
    ingest.applied(policy(True))
    status, body = ingest.post([completed("r2", "lr 3e-4 converges"), completed("r3")])
    assert status == 422
    assert body["error"]["code"] == "conclusion_required"
    assert body["error"]["details"] == {"index": 1, "run": "run:r3", "project": "p"}
    assert ingest.post(completed("r2", "lr 3e-4 converges"))[0] == 202


def test_a_policy_set_earlier_in_the_batch_is_in_force(ingest: Ingest) -> None:
    status, body = ingest.post([policy(True), completed("r4")])
    assert (status, body["error"]["code"]) == (422, "conclusion_required")
    assert ingest.post([policy(False), completed("r4")])[0] == 202


def test_a_retry_of_an_applied_run_completed_is_accepted_under_a_later_policy(
    ingest: Ingest,
) -> None:
    before = completed("r5")
    ingest.applied(before, policy(True))
    assert ingest.post(before)[0] == 202  # applied before the policy: a retry, not a new run
    assert ingest.post(completed("r6"))[0] == 422


class DownFacts:
    """A graph that cannot be read."""

    def discipline_facts(
        self,
        environments: Collection[str],
        projects: Collection[str],
        dataset_versions: Collection[str] = (),
        model_versions: Collection[str] = (),
    ) -> RecordFacts:
        raise ConnectionError("neo4j gone")


def test_an_unreadable_graph_is_503_not_a_refusal() -> None:
    app = create_app(
        IngestSettings(retry_after_s=2),
        event_log=MemoryEventLog(),
        principals=PRINCIPALS,
        owners=MemoryGraph(),
        payload_hashes=MemoryPayloadHashes(),
        facts=DownFacts(),
    )
    with TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        answer = client.post("/v1/events", content=json.dumps(env()).encode())
    assert answer.status_code == 503
    assert answer.json()["error"]["code"] == "graph_unavailable"
    assert answer.headers["retry-after"] == "2"


def test_an_incomplete_record_is_422_naming_what_is_missing(ingest: Ingest) -> None:
    run = started("p", without=("code", "environment"))
    ingest.applied(_data(run))  # before the policy: kept, and a retry of it stays accepted
    ingest.applied(_data(policy_of("p", {RecordKind.RUN: ("code", "environment")}, gates=True)))
    assert ingest.post(_data(run))[0] == 202
    bare = started("p", without=("environment",), train=("dataset:p/crawl@v1",))
    status, body = ingest.post([env(), _data(bare)])
    assert status == 422
    assert body["error"]["code"] == "record_incomplete"
    assert body["error"]["details"] == {
        "index": 1,
        "record": bare.subject,
        "kind": "run",
        "project": "p",
        "missing": ["environment", "passed_gates"],
        "gates": [{"dataset_version": "dataset:p/crawl@v1", "failed": []}],
    }
    assert len(ingest.log.events) == 1  # the retry alone: nothing of the refused batch
    gated = version("p", "crawl", checks={"dedup": True})
    assert ingest.post([_data(gated), _data(started("p", train=(gated.subject,)))])[0] == 202


def _data(event: Event) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(event.to_json_bytes())
    return data
