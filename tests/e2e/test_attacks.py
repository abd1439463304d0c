"""An attacker with an ordinary writer token, and a producer writing straight to Kafka, against
the real stack (ingest, projector and query processes, Kafka, Neo4j).

Each class of attack runs with several payloads and asserts its effect: the bad event refused
by ingest (a clear 4xx naming what is wrong) or dead-lettered by the projector (with a reason),
the victim's records unchanged, and projection still moving. The stack: security_stack.py.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import httpx
import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from neo4j import Driver
from security_stack import PRODUCER, Stack, await_true, open_stack

from provgraph.authz.admin import access_event, token_issued, token_revoked
from provgraph.authz.tokens import new_token
from provgraph.schemas.events.governance import AccessRole

pytestmark = pytest.mark.e2e

NOW = datetime.now(UTC)


@pytest.fixture(scope="module")
def stack(
    tmp_path_factory: pytest.TempPathFactory, endpoints: Any, neo4j_driver: Driver
) -> Iterator[Stack]:
    home = tmp_path_factory.mktemp("attacks")
    with open_stack(home, endpoints, neo4j_driver, "t-atk") as stack:
        yield stack


# --- building events as an attacker would: raw JSON, any field ----------------------------


def _time(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def event(
    event_type: str, project: str, subject: str, payload: dict[str, Any], **envelope: Any
) -> dict[str, Any]:
    """A wire event; `envelope` overrides any envelope field (schema_version, occurred_at...)."""
    versions = {"checkpoint.saved": 2}
    return {
        "event_id": str(uuid.uuid4()),
        "event_type": event_type,
        "schema_version": versions.get(event_type, 1),
        "occurred_at": _time(NOW),
        "project": project,
        "producer": PRODUCER,
        "actor": "user:attacker",
        "subject": subject,
        "payload": payload,
        **envelope,
    }


ENVELOPE = frozenset({"occurred_at", "actor", "schema_version", "event_id", "producer"})


def run_started(project: str, run_id: str, **fields: Any) -> dict[str, Any]:
    """A run.started; `fields` named like envelope fields go to the envelope."""
    envelope = {k: v for k, v in fields.items() if k in ENVELOPE}
    payload = {k: v for k, v in fields.items() if k not in ENVELOPE}
    return event("run.started", project, f"run:{run_id}", {"run_id": run_id, **payload}, **envelope)


def checkpoint_saved(project: str, run_id: str, step: int, uri: str) -> dict[str, Any]:
    payload = {"run_id": run_id, "step": step, "uri": uri}
    return event("checkpoint.saved", project, f"checkpoint:{run_id}/{step}", payload)


class Attacker:
    """Sends events over HTTP (with a token) or straight to the stack's Kafka topic."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        bootstrap = os.environ["PROVGRAPH_KAFKA_BOOTSTRAP"]
        self.topic = os.environ["PROVGRAPH_EVENTS_TOPIC"]
        self.dlq = os.environ["PROVGRAPH_DEAD_LETTER_TOPIC"]
        self.producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
        self.bootstrap = bootstrap

    def http(self, who: str | None, events: list[Any], path: str = "/v1/events") -> Any:
        url = f"{self.stack.apps.settings.ingest_url}{path}"
        body = json.dumps(events if len(events) != 1 else events[0]).encode()
        headers = {"Content-Type": "application/json", **self.stack.headers(who)}
        return httpx.post(url, content=body, headers=headers, timeout=30)

    def kafka(self, value: bytes | dict[str, Any], key: bytes | None = None) -> tuple[int, int]:
        """Write one record straight to the event topic; its (partition, offset)."""
        if isinstance(value, dict):
            key = key or value["subject"].encode()
            value = json.dumps(value).encode()
        meta = self.producer.send(self.topic, key=key or b"x", value=value).get(timeout=30)
        return meta.partition, meta.offset

    def dead_letters(self) -> dict[tuple[int, int], dict[str, str]]:
        """Every dead letter so far: (source partition, source offset) -> its headers."""
        consumer = KafkaConsumer(bootstrap_servers=self.bootstrap, enable_auto_commit=False)
        try:
            parts = [TopicPartition(self.dlq, p) for p in consumer.partitions_for_topic(self.dlq)]
            consumer.assign(parts)
            consumer.seek_to_beginning(*parts)
            end = consumer.end_offsets(parts)
            found: dict[tuple[int, int], dict[str, str]] = {}
            while any(consumer.position(p) < end[p] for p in parts):
                for records in consumer.poll(timeout_ms=1000).values():
                    for record in records:
                        headers = {k: v.decode("utf-8", "replace") for k, v in record.headers}
                        where = (int(headers["source.partition"]), int(headers["source.offset"]))
                        found[where] = headers
            return found
        finally:
            consumer.close()

    def await_dead_letter(self, where: tuple[int, int], timeout_s: float = 60) -> dict[str, str]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            letter = self.dead_letters().get(where)
            if letter is not None:
                return letter
            time.sleep(0.5)
        raise AssertionError(f"record {where} was not dead-lettered within {timeout_s} s")

    def marker(self) -> None:
        """Projection still moves: a fresh legitimate event of A gets applied."""
        run = run_started(self.stack.a, f"marker-{uuid.uuid4().hex[:8]}")
        answer = self.http("writer-a", [run])
        assert answer.status_code == 202, answer.text
        await_true(self.stack.driver, "MATCH (r:Run {id: $id}) RETURN count(r)", id=run["subject"])


@pytest.fixture(scope="module")
def attacker(stack: Stack) -> Iterator[Attacker]:
    attacker = Attacker(stack)
    try:
        yield attacker
    finally:
        attacker.producer.close()


@pytest.fixture(scope="module")
def victim(stack: Stack, attacker: Attacker) -> dict[str, str]:
    """Project B's run, its checkpoint and a dataset version, written by B's own admin."""
    run_id = f"victim-{uuid.uuid4().hex[:8]}"
    b = stack.b
    events = [
        event(
            "dataset.version.created",
            b,
            f"dataset:{b}/corpus-b@v1",
            {"name": "corpus-b", "version": "v1", "storage_uri": "s3://b/corpus/v1/"},
        ),
        run_started(b, run_id, params={"lr": 0.001}),
        checkpoint_saved(b, run_id, 100, "s3://b/ckpt/100/"),
    ]
    assert attacker.http("admin", events).status_code == 202
    ids = {
        "run": f"run:{run_id}",
        "run_id": run_id,
        "checkpoint": f"checkpoint:{run_id}/100",
        "dataset_version": f"dataset:{b}/corpus-b@v1",
    }
    # All three applied, not only the checkpoint: the partitions of one batch may be applied in
    # any order, and a takeover judged while B's run is still a placeholder would be let in.
    _await_applied(stack, *(e["event_id"] for e in events))
    return ids


def snapshot(driver: Driver, project: str) -> list[Any]:
    """Every node of `project` with its properties and outgoing relationships, sorted."""
    records, _, _ = driver.execute_query(
        "MATCH (n:Entity {project: $p}) OPTIONAL MATCH (n)-[r]->(m) "
        "WITH n, collect([type(r), m.id, properties(r)]) AS out "
        "RETURN n.id AS id, properties(n) AS props, out ORDER BY id",
        p=project,
    )
    return [(r["id"], sorted(r["props"].items()), sorted(map(repr, r["out"]))) for r in records]


# --- 1. one event must not stop projection for everyone -----------------------------------


def _deep(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"k": value}
    return value


UNSTORABLE: dict[str, Callable[[str], dict[str, Any]]] = {
    "param-beyond-64-bits": lambda p: run_started(p, _rid(), params={"n": 2**64 + 1}),
    "negative-param-beyond-64-bits": lambda p: run_started(p, _rid(), params={"n": -(2**63) - 1}),
    "metric-beyond-64-bits": lambda p: event(
        "run.completed",
        p,
        "run:" + (r := _rid()),
        {"run_id": r, "conclusion": "done", "final_metrics": {"loss": 10**30}},
    ),
    "step-beyond-64-bits": lambda p: checkpoint_saved(p, _rid(), 2**63, "s3://a/x/"),
    "calendar-edge-with-offset": lambda p: run_started(
        p, _rid(), occurred_at="0001-01-01T00:00:00+01:00"
    ),
    "calendar-end-with-offset": lambda p: run_started(
        p, _rid(), occurred_at="9999-12-31T23:59:59-01:00"
    ),
    "deep-json": lambda p: run_started(p, _rid(), params={"deep": _deep(3000)}),
}


def _rid() -> str:
    return f"r-{uuid.uuid4().hex[:10]}"


def _raw(value: dict[str, Any]) -> bytes:
    # json.dumps refuses nesting deeper than the recursion limit: build the deep text by hand.
    deep = value.get("payload", {}).get("params", {}).get("deep")
    if deep is None:
        return json.dumps(value).encode()
    value["payload"]["params"]["deep"] = "@DEEP@"
    text = json.dumps(value)
    return text.replace('"@DEEP@"', '{"k":' * 3000 + "1" + "}" * 3000).encode()


@pytest.mark.parametrize("name", sorted(UNSTORABLE))
def test_an_unstorable_event_is_refused_by_ingest_with_a_clear_4xx(
    stack: Stack, attacker: Attacker, name: str
) -> None:
    url = f"{stack.apps.settings.ingest_url}/v1/events"
    body = _raw(UNSTORABLE[name](stack.a))
    headers = {"Content-Type": "application/json", **stack.headers("writer-a")}
    answer = httpx.post(url, content=body, headers=headers, timeout=30)
    assert answer.status_code in (400, 422), answer.text
    error = answer.json()["error"]
    assert error["code"] and error["message"]


def test_unstorable_events_straight_to_kafka_are_dead_lettered_and_revocations_still_apply(
    stack: Stack, attacker: Attacker
) -> None:
    # A token that works now, revoked after the poison: the revocation must still take effect.
    token, principal = new_token(), f"service:late-revoke-{uuid.uuid4().hex[:6]}"
    issued = token_issued(principal, token, [], "t")
    grant = access_event(principal, stack.a, AccessRole.READER, "t", grant=True)
    assert stack.ingest("admin", [issued, grant]).status_code == 202
    stack.tokens["late"] = token
    await_true(stack.driver, "MATCH (p:Principal {name: $n}) RETURN count(p)", n=principal)

    where = {
        name: attacker.kafka(_raw(make(stack.a)), key=b"poison")
        for name, make in UNSTORABLE.items()
    }
    answer = stack.ingest("admin", [token_revoked(principal, "t", "compromised")])
    assert answer.status_code == 202, answer.text
    for name, position in where.items():
        letter = attacker.await_dead_letter(position)
        assert letter.get("provgraph-reason"), (name, letter)
    await_true(
        stack.driver, "MATCH (p:Principal {name: $n}) RETURN p.revoked_at IS NOT NULL", n=principal
    )
    time.sleep(1.5)  # the services' auth cache bound
    refused = stack.graphql("late", '{ search(text: "x") { id } }')
    assert refused.status_code == 401
    attacker.marker()


# --- 2. cross-project takeover -------------------------------------------------------------


def _takeovers(a: str, v: dict[str, str]) -> dict[str, dict[str, Any]]:
    run_id = v["run_id"]
    return {
        "run.started": run_started(a, run_id, params={"lr": 9}),
        "run.completed": event(
            "run.completed", a, v["run"], {"run_id": run_id, "conclusion": "forced"}
        ),
        "run.failed": event(
            "run.failed",
            a,
            v["run"],
            {"run_id": run_id, "conclusion": "forced", "error": {"type": "X", "message": "m"}},
        ),
        "checkpoint.saved": checkpoint_saved(a, run_id, 100, "s3://evil/ckpt/"),
        "checkpoint.saved.new-step": checkpoint_saved(a, run_id, 200, "s3://evil/ckpt/200/"),
        "checkpoint.deleted": event(
            "checkpoint.deleted", a, v["checkpoint"], {"checkpoint": v["checkpoint"]}
        ),
        "run.metrics.logged": event(
            "run.metrics.logged",
            a,
            v["run"],
            {"run_id": run_id, "points": [{"name": "loss", "step": 1, "value": 0.0}]},
        ),
    }


@pytest.mark.parametrize(
    "kind",
    [
        "run.started",
        "run.completed",
        "run.failed",
        "checkpoint.saved",
        "checkpoint.saved.new-step",
        "checkpoint.deleted",
        "run.metrics.logged",
    ],
)
def test_a_writer_cannot_change_another_projects_run_over_http(
    stack: Stack, attacker: Attacker, victim: dict[str, str], kind: str
) -> None:
    before = snapshot(stack.driver, stack.b)
    answer = attacker.http("writer-a", [_takeovers(stack.a, victim)[kind]])
    assert answer.status_code == 403, answer.text
    error = answer.json()["error"]
    assert error["code"] == "forbidden"
    assert stack.b in error["message"]
    attacker.marker()
    assert snapshot(stack.driver, stack.b) == before


def test_cross_project_writes_straight_to_kafka_are_dead_lettered(
    stack: Stack, attacker: Attacker, victim: dict[str, str]
) -> None:
    before = snapshot(stack.driver, stack.b)
    sent = {kind: attacker.kafka(e) for kind, e in _takeovers(stack.a, victim).items()}
    for kind, where in sent.items():
        letter = attacker.await_dead_letter(where)
        assert letter["provgraph-reason"] == "ownership", (kind, letter)
    attacker.marker()
    assert snapshot(stack.driver, stack.b) == before


def test_delete_right_on_one_project_cannot_tombstone_another_projects_run(
    stack: Stack, attacker: Attacker, victim: dict[str, str]
) -> None:
    before = snapshot(stack.driver, stack.b)
    for entity in (victim["run"], victim["checkpoint"]):
        deletion = event(
            "entity.deleted", stack.a, entity, {"entity": entity, "reason": "takedown"}
        )
        assert attacker.http("deleter-a", [deletion]).status_code == 403
        where = attacker.kafka(deletion)
        assert attacker.await_dead_letter(where)["provgraph-reason"] == "ownership"
    attacker.marker()
    assert snapshot(stack.driver, stack.b) == before


# --- 3. OpenLineage into other namespaces -------------------------------------------------


def _openlineage(job_ns: str, inputs: list[str], outputs: list[str]) -> dict[str, Any]:
    def dataset(ns: str) -> dict[str, Any]:
        return {
            "namespace": ns,
            "name": "corpus-b",
            "facets": {
                "version": {
                    "_producer": PRODUCER,
                    "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/"
                    "DatasetVersionDatasetFacet.json",
                    "datasetVersion": "v1",
                },
                "documentation": {
                    "_producer": PRODUCER,
                    "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/"
                    "DocumentationDatasetFacet.json",
                    "description": "rewritten by an attacker",
                },
            },
        }

    return {
        "eventType": "COMPLETE",
        "eventTime": _time(NOW),
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": job_ns, "name": "etl"},
        "inputs": [dataset(ns) for ns in inputs],
        "outputs": [dataset(ns) for ns in outputs],
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }


@pytest.mark.parametrize(
    ("inputs", "outputs"), [([], ["B"]), (["B"], []), (["A"], ["A", "B"])], ids=str
)
def test_openlineage_cannot_write_or_read_other_namespaces(
    stack: Stack, attacker: Attacker, victim: dict[str, str], inputs: list[str], outputs: list[str]
) -> None:
    names = {"A": stack.a, "B": stack.b}
    before = snapshot(stack.driver, stack.b)
    body = _openlineage(stack.a, [names[n] for n in inputs], [names[n] for n in outputs])
    answer = attacker.http("writer-a", [body], path="/api/v1/lineage")
    assert answer.status_code == 403, answer.text
    assert stack.b in answer.json()["error"]["message"]
    attacker.marker()
    assert snapshot(stack.driver, stack.b) == before


# --- 4. time is the server's -----------------------------------------------------------------


@pytest.mark.parametrize("ahead", [timedelta(hours=1), timedelta(days=3650)], ids=str)
def test_far_future_occurred_at_is_refused_and_dead_lettered(
    stack: Stack, attacker: Attacker, ahead: timedelta
) -> None:
    future = run_started(stack.a, _rid(), occurred_at=_time(NOW + ahead))
    answer = attacker.http("writer-a", [future])
    assert answer.status_code == 422, answer.text
    assert "occurred_at" in answer.text
    where = attacker.kafka(future)
    assert attacker.await_dead_letter(where)["provgraph-reason"] == "occurred_at_in_future"


def test_a_revoke_beats_an_earlier_grant_whatever_times_they_claim(
    stack: Stack, attacker: Attacker
) -> None:
    token, principal = new_token(), f"service:grant-order-{uuid.uuid4().hex[:6]}"
    assert stack.ingest("admin", [token_issued(principal, token, [], "t")]).status_code == 202
    stack.tokens["grant-order"] = token
    await_true(stack.driver, "MATCH (p:Principal {name: $n}) RETURN count(p)", n=principal)
    grant = access_event(principal, stack.a, AccessRole.READER, "t", grant=True)
    assert stack.ingest("admin-a", [grant]).status_code == 202
    node = f'{{ node(id: "{stack.base_model}") {{ id }} }}'
    _await_answer(stack, "grant-order", node, lambda data: data["node"] is not None)
    # The revoke claims a time long before the grant: the log order decides, not the claim.
    revoke = access_event(principal, stack.a, AccessRole.READER, "t", grant=False)
    earlier = json.loads(revoke.to_json_bytes())
    earlier["occurred_at"] = _time(NOW - timedelta(days=365))
    assert attacker.http("admin-a", [earlier]).status_code == 202
    _await_answer(stack, "grant-order", node, lambda data: data["node"] is None)


def _await_applied(stack: Stack, *event_ids: str) -> None:
    query = "MATCH (e:AppliedEvent) WHERE e.event_id IN $ids RETURN count(e) = size($ids)"
    await_true(stack.driver, query, ids=list(event_ids))


def _await_answer(stack: Stack, who: str, query: str, ok: Callable[[Any], bool]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        answer = stack.graphql(who, query).json()
        if answer.get("data") and ok(answer["data"]):
            return
        time.sleep(0.5)
    raise AssertionError(f"{who} never got the expected answer to {query}")


@pytest.mark.parametrize("role", [AccessRole.DELETE, AccessRole.ADMIN])
def test_a_project_admin_cannot_hand_out_delete_or_admin(stack: Stack, role: AccessRole) -> None:
    for grantee in (stack.names["admin-a"], stack.names["writer-a"]):
        answer = stack.ingest("admin-a", [access_event(grantee, stack.a, role, "t", grant=True)])
        assert answer.status_code == 403, answer.text
        assert "global admin" in answer.json()["error"]["message"]


# --- 5. actor is a claim, the principal is stamped ------------------------------------------


def test_the_authenticated_principal_is_stamped_beside_the_claimed_actor(
    stack: Stack, attacker: Attacker
) -> None:
    forged = run_started(stack.a, _rid(), actor="user:the-ceo")
    assert attacker.http("writer-a", [forged]).status_code == 202
    await_true(
        stack.driver,
        "MATCH (e:AppliedEvent {event_id: $id}) RETURN count(e)",
        id=forged["event_id"],
    )
    records, _, _ = stack.driver.execute_query(
        "MATCH (e:AppliedEvent {event_id: $id}) RETURN e.actor AS actor, e.principal AS principal,"
        " e.logged_at AS logged_at",
        id=forged["event_id"],
    )
    stored = records[0]
    assert stored["actor"] == "user:the-ceo"  # kept, as a claim
    assert stored["principal"] == f"principal:{stack.names['writer-a']}"
    assert stored["logged_at"] and stored["logged_at"] >= _time(NOW - timedelta(minutes=5))[:19]
    query = (
        f'{{ history(id: "run:{forged["payload"]["run_id"]}") '
        "{ items { eventId actor principal loggedAt } } }"
    )
    items = stack.graphql("reader-a", query).json()["data"]["history"]["items"]
    shown = next(item for item in items if item["eventId"] == forged["event_id"])
    assert shown == {
        "eventId": forged["event_id"],
        "actor": "user:the-ceo",
        "principal": stack.names["writer-a"],  # stored as its node id, shown as issued
        "loggedAt": stored["logged_at"],
    }


# --- 6. history shows only readable projects' events --------------------------------------


def test_history_does_not_show_events_of_projects_the_caller_cannot_read(stack: Stack) -> None:
    query = f'{{ history(id: "{stack.base_model}", first: 100) {{ items {{ eventId subject }} }} }}'
    admin = stack.graphql("admin", query).json()["data"]["history"]["items"]
    reader = stack.graphql("reader-a", query).json()["data"]["history"]["items"]
    records, _, _ = stack.driver.execute_query(
        "MATCH (e:AppliedEvent) WHERE e.project = $b RETURN collect(e.event_id) AS ids", b=stack.b
    )
    of_b = set(records[0]["ids"])
    assert of_b & {item["eventId"] for item in admin}  # B's run references A's base model
    assert not of_b & {item["eventId"] for item in reader}
    assert all(stack.b not in (item["subject"] or "") for item in reader)


# --- 7. read-only Cypher by construction ------------------------------------------------------


class _Hits(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        _Hits.hits.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"a,b\n1,2\n")

    def log_message(self, *args: Any) -> None:
        return


@pytest.fixture(scope="module")
def listener() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hits)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


WRITES = [
    "CREATE (n:Entity {id: 'pwned', project: $p})",
    "MATCH (n:Entity {project: $p}) SET n.pwned = true",
    "MATCH (n:Entity {project: $p}) DETACH DELETE n",
    "MERGE (n:Entity {id: 'pwned'}) RETURN n",
    "MATCH (n:Entity {project: $p}) /* SET */ CALL (n) { SET n.pwned = 1 } RETURN n",
    "MATCH (n:Entity {project: $p}) WITH n CALL { WITH n REMOVE n.id } RETURN 1",
    "MATCH (n) WHERE n.project = $p FOREACH (x IN [1] | SET n.`pw` = 1)",
    "CALL db.createLabel('Pwned')",
    "CALL dbms.setConfigValue('db.logs.query.enabled', 'OFF')",
    "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
    "SHOW TRANSACTIONS",
    "CREATE USER pwned SET PASSWORD 'pwned-pwned'",
    "CALL apoc.cypher.runWrite('CREATE (:Pwned)', {})",
    "RETURN 1 UNION CALL { CREATE (x:Pwned) RETURN 1 AS one } RETURN one AS `1`",
]


@pytest.mark.parametrize("text", WRITES)
def test_cypher_cannot_write_or_administer(stack: Stack, text: str) -> None:
    before = snapshot(stack.driver, stack.a)
    answer = _cypher(stack, text)
    assert answer.status_code in (400, 403, 422), answer.text
    assert answer.json()["error"]["message"]
    assert snapshot(stack.driver, stack.a) == before
    records, _, _ = stack.driver.execute_query("MATCH (n:Pwned) RETURN count(n) AS c")
    assert records[0]["c"] == 0


@pytest.mark.parametrize(
    "template",
    [
        "LOAD CSV FROM '{url}/a.csv' AS row RETURN row",
        "load csv from '{url}/b.csv' as row return count(row)",
        "LOAD\tCSV WITH HEADERS FROM '{url}/c.csv' AS row RETURN row",
        "WITH '{url}/d.csv' AS u LOAD CSV FROM u AS row RETURN row",
        "CALL {{ LOAD CSV FROM '{url}/e.csv' AS row RETURN row }} RETURN row",
    ],
)
def test_cypher_cannot_fetch_urls(stack: Stack, listener: str, template: str) -> None:
    _Hits.hits.clear()
    answer = _cypher(stack, template.format(url=listener))
    assert answer.status_code in (400, 403, 422), answer.text
    time.sleep(0.5)
    assert _Hits.hits == []


def _cypher(stack: Stack, text: str) -> Any:
    url = f"{stack.apps.settings.query_url}/v1/cypher"
    body = {"query": text, "parameters": {"p": stack.a}}
    return httpx.post(url, json=body, headers=stack.headers("auditor"), timeout=30)


# --- 8. one event_id, one payload ----------------------------------------------------------


def test_reusing_an_event_id_with_another_payload_is_a_conflict(
    stack: Stack, attacker: Attacker
) -> None:
    first = run_started(stack.a, _rid(), params={"lr": 1})
    assert attacker.http("writer-a", [first]).status_code == 202
    _await_applied(stack, first["event_id"])
    assert attacker.http("writer-a", [first]).status_code == 202  # the same event: a retry
    other = {**first, "payload": {**first["payload"], "params": {"lr": 2}}}
    answer = attacker.http("writer-a", [other])
    assert answer.status_code == 409, answer.text
    assert first["event_id"] in answer.json()["error"]["message"]
    where = attacker.kafka(other)
    assert attacker.await_dead_letter(where)["provgraph-reason"] == "conflict"
    records, _, _ = stack.driver.execute_query(
        "MATCH (r:Run {id: $id}) RETURN properties(r) AS p", id=first["subject"]
    )
    assert 2 not in records[0]["p"].values()


def test_the_same_event_id_twice_in_one_batch_with_other_payloads_is_refused(
    stack: Stack, attacker: Attacker
) -> None:
    first = run_started(stack.a, _rid(), params={"lr": 1})
    other = {**first, "payload": {**first["payload"], "params": {"lr": 2}}}
    answer = attacker.http("writer-a", [first, other])
    assert answer.status_code in (409, 422), answer.text


# --- 9. ingest answers 4xx, never 500, to malformed input -----------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000,
        b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
        b'{"n": ' + b"9" * 10_000 + b"}",
        b'{"n": 1e999}',
    ],
    ids=["open-brackets", "deep-object", "huge-integer", "infinite-float"],
)
def test_malformed_bodies_get_a_json_4xx(stack: Stack, body: bytes) -> None:
    url = f"{stack.apps.settings.ingest_url}/v1/events"
    headers = {"Content-Type": "application/json", **stack.headers("writer-a")}
    answer = httpx.post(url, content=body, headers=headers, timeout=30)
    assert 400 <= answer.status_code < 500, answer.text
    assert answer.json()["error"]["code"]


@pytest.mark.parametrize("kind", ["run", "dataset", "checkpoint", "project"])
def test_an_id_with_a_trailing_newline_is_refused(
    stack: Stack, attacker: Attacker, kind: str
) -> None:
    rid = _rid()
    subjects = {
        "run": run_started(stack.a, rid + "\n"),
        "dataset": event(
            "dataset.version.created",
            stack.a,
            f"dataset:{stack.a}/c@v1\n",
            {"name": "c", "version": "v1", "storage_uri": "s3://a/c/"},
        ),
        "checkpoint": checkpoint_saved(stack.a, rid, 1, "s3://a/c/")
        | {"subject": f"checkpoint:{rid}/1\n"},
        "project": run_started(stack.a + "\n", rid),
    }
    answer = attacker.http("writer-a", [subjects[kind]])
    assert answer.status_code == 422, answer.text


# --- 11. abuse limits ------------------------------------------------------------------------


def test_random_bearer_tokens_are_rate_limited_and_do_not_evict_valid_ones(
    stack: Stack,
) -> None:
    url = f"{stack.apps.settings.query_url}/graphql"
    query = {"query": '{ search(text: "x") { id } }'}
    statuses: list[int] = []
    with httpx.Client(timeout=30) as client:
        for _ in range(400):
            headers = {"Authorization": f"Bearer pgt_{uuid.uuid4().hex}"}
            answer = client.post(url, json=query, headers=headers)
            statuses.append(answer.status_code)
            if answer.status_code == 429:
                assert int(answer.headers["Retry-After"]) >= 1
                assert answer.json()["error"]["code"]
                break
        assert 429 in statuses
        assert set(statuses) <= {401, 429}
        valid = client.post(url, json=query, headers=stack.headers("reader-a"))
        assert valid.status_code == 200
