"""A project's conventions enforced at ingest, against the real Kafka broker and Neo4j with
the real projector between the requests: once its admin requires names and places
(`project.policy.set` v3), a run whose name breaks the naming rule is 422 ``name_breaks_rule``
naming the run, the rule and the name it builds, a checkpoint outside the storage roots or at
a personal path is 422 ``place_refused``, a checkpoint at a URI another experiment's run wrote
is 409 ``place_taken`` naming that output, nothing of the refused batch is written, and what
follows the conventions is accepted."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from neo4j import Driver
from support.conventions_story import ROOT, RULE, checkpoint, conventions_policy, run
from test_ingest_discipline import body, http, project_log

from provgraph.ingest.graphread import read_graph
from provgraph.ingest.settings import IngestSettings

__all__ = ["http"]  # the fixture, shared with the discipline tests


def test_names_and_places_are_refused_at_ingest(
    settings: IngestSettings, neo4j_driver: Driver, project: str, access: Any, http: TestClient
) -> None:
    tag = project[-8:]
    writer = access.headers(f"service:w-{tag}", grants={project: ("writer",)})
    admin = access.headers(f"service:a-{tag}", grants={project: ("admin",)})
    before = run(project, "early", 9, "anything")  # before the policy: accepted
    assert http.post("/v1/events", json=body(before), headers=writer).status_code == 202
    policy = body(conventions_policy(project))
    assert http.post("/v1/events", json=policy, headers=writer).status_code == 403  # not admin
    assert http.post("/v1/events", json=policy, headers=admin).status_code == 202
    project_log(settings, neo4j_driver)

    good, bad = run(project, "a", 1, "sft-r1"), run(project, "b", 2, "tmp")
    answer = http.post("/v1/events", json=body(good, bad), headers=writer)
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["code"] == "name_breaks_rule"
    assert error["details"] == {
        "index": 1,
        "record": bad.subject,
        "kind": "run",
        "rule": RULE,
        "problem": f"'tmp' does not follow the rule '{RULE}'",
        "suggestion": "sft-r2",
    }
    assert error["message"].startswith("event 1 (run.started): run ")
    assert "nothing of the batch was written" in error["message"]
    unnamed = http.post("/v1/events", json=body(run(project, "c", 3, None)), headers=writer)
    assert unnamed.json()["error"]["details"]["problem"].startswith("no name given")
    assert http.post("/v1/events", json=body(good), headers=writer).status_code == 202

    for uri, why in (("s3://elsewhere/c/1", "outside"), ("file:///home/ann/c/1", "personal")):
        answer = http.post(
            "/v1/events", json=body(checkpoint(project, "a", 1, uri)), headers=writer
        )
        assert answer.status_code == 422, answer.text
        error = answer.json()["error"]
        assert error["code"] == "place_refused"
        assert (error["details"]["uri"], error["details"]["storage_roots"]) == (uri, [ROOT])
        assert why in error["details"]["problem"]
    kept = checkpoint(project, "a", 1, f"{ROOT}/ckpt/1")
    assert http.post("/v1/events", json=body(kept), headers=writer).status_code == 202

    project_log(settings, neo4j_driver)
    nodes = read_graph(neo4j_driver, project).nodes
    assert before.subject in nodes and good.subject in nodes and kept.subject in nodes
    assert bad.subject not in nodes
    assert nodes[kept.subject]["props"]["uri"] == f"{ROOT}/ckpt/1"

    # A run of another experiment at the URI sft-r1's checkpoint holds: 409, naming it; the
    # same run saving there again is its own job's output.
    other = run(project, "d", 1, "dpo-r1", "dpo")
    assert http.post("/v1/events", json=body(other), headers=writer).status_code == 202
    project_log(settings, neo4j_driver)
    clash = checkpoint(project, "d", 1, f"{ROOT}/ckpt/1")
    answer = http.post("/v1/events", json=body(clash), headers=writer)
    assert answer.status_code == 409, answer.text
    error = answer.json()["error"]
    assert error["code"] == "place_taken"
    assert error["details"] == {
        "index": 0,
        "record": clash.subject,
        "uri": f"{ROOT}/ckpt/1",
        "other": kept.subject,
        "other_job": f"experiment:{project}/sft",
    }
    again = checkpoint(project, "a", 2, f"{ROOT}/ckpt/1")
    assert http.post("/v1/events", json=body(again), headers=writer).status_code == 202
