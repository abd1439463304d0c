"""Projects, tokens and permissions against the real stack: principals x operations x projects.

Project A trains a base model; project B fine-tunes it. Every principal gets its token and
grants through the log (HTTP with the bootstrap admin token, or the `provgraph` CLI), folded by
the projector; ingest and query read them from Neo4j. See security_stack.py for the setup.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from e2e_helpers import await_principal
from neo4j import Driver
from security_stack import (
    CACHE_BOUND_S,
    PRODUCER,
    Stack,
    await_true,
    delete_event,
    open_stack,
    run_event,
)

from provgraph.authz.admin import access_event, token_issued
from provgraph.authz.tokens import new_token
from provgraph.schemas import Event
from provgraph.schemas.events.governance import AccessRole


@pytest.fixture(scope="module")
def stack(
    tmp_path_factory: pytest.TempPathFactory, endpoints: Any, neo4j_driver: Driver
) -> Iterator[Stack]:
    with open_stack(tmp_path_factory.mktemp("sec"), endpoints, neo4j_driver, "t-sec") as stack:
        yield stack


# --- authentication -------------------------------------------------------------------------


def test_missing_unknown_and_revoked_tokens_are_the_same_401(stack: Stack) -> None:
    stack.tokens["garbage"] = "pgt_not-a-token"
    for who in (None, "garbage"):
        ingest = stack.ingest(who, [run_event(stack.a)])
        query = stack.graphql(who, '{ search(text: "x") { id } }')
        assert ingest.status_code == query.status_code == 401
        assert ingest.json()["error"]["code"] == query.json()["error"]["code"] == "unauthenticated"
        assert ingest.headers["WWW-Authenticate"] == "Bearer"


def test_revoked_token_is_refused_after_the_projection_and_the_cache_bound(stack: Stack) -> None:
    node = f'{{ node(id: "{stack.base_model}") {{ id }} }}'
    assert stack.graphql("to-revoke", node).json()["data"]["node"]["id"] == stack.base_model
    principal = stack.names["to-revoke"]
    stack.cli("token", "revoke", "--name", principal, "--reason", "test")
    await_true(
        stack.driver,
        "MATCH (p:Principal {name: $n}) RETURN p.revoked_at IS NOT NULL",
        n=principal,
    )
    time.sleep(CACHE_BOUND_S)
    refused = stack.graphql("to-revoke", node)
    assert refused.status_code == 401
    assert refused.json() == stack.graphql(None, node).json()


def test_cli_token_create_prints_a_working_token(stack: Stack) -> None:
    token = stack.cli("token", "create", "--name", f"service:cli-{uuid.uuid4().hex[:8]}")
    assert token.startswith("pgt_")
    await_principal(stack.driver, token)
    stack.tokens["cli"] = token
    answer = stack.graphql("cli", f'{{ node(id: "{stack.base_model}") {{ id }} }}')
    assert answer.status_code == 200
    assert answer.json()["errors"][0]["extensions"]["code"] == "not_found"  # no grants yet


# --- ingest: who may emit what ----------------------------------------------------------------

INGEST_MATRIX = [
    ("writer-a", "write", "A", 202, None),
    ("writer-a", "write", "B", 403, "writer"),
    ("reader-a", "write", "A", 403, "writer"),
    ("nobody", "write", "A", 403, "writer"),
    ("writer-a", "delete", "A", 403, "delete"),
    ("deleter-a", "delete", "A", 202, None),
    ("writer-a", "grant", "A", 403, "admin"),
    ("admin-a", "grant", "A", 202, None),
    ("admin-a", "grant", "B", 403, "admin"),
    ("admin-a", "token", "A", 403, "global admin"),
    ("admin", "token", "A", 202, None),
    ("admin", "delete", "B", 202, None),
]


@pytest.mark.parametrize(("who", "operation", "key", "status", "right"), INGEST_MATRIX)
def test_ingest_matrix(
    stack: Stack, who: str, operation: str, key: str, status: int, right: str | None
) -> None:
    project = stack.a if key == "A" else stack.b
    events: list[Event] = {
        "write": lambda: [run_event(project)],
        "delete": lambda: [delete_event(f"dataset:{project}/gone@v1", project)],
        "grant": lambda: [access_event("user:x", project, AccessRole.READER, "t", grant=True)],
        "token": lambda: [token_issued(f"user:x-{uuid.uuid4().hex[:6]}", new_token(), [], "t")],
    }[operation]()
    answer = stack.ingest(who, events)
    assert answer.status_code == status, answer.text
    if right is not None:
        error = answer.json()["error"]
        assert error["code"] == "forbidden" and error["details"]["right"] == right
        if operation != "token":
            assert error["details"]["project"] == project and project in error["message"]


def test_a_refused_batch_writes_nothing(stack: Stack) -> None:
    allowed, refused = run_event(stack.a), run_event(stack.b)
    answer = stack.ingest("writer-a", [allowed, refused])
    assert answer.status_code == 403
    assert answer.json()["error"]["details"] == {
        "index": 1,
        "right": "writer",
        "project": stack.b,
        "event_type": "run.started",
    }
    marker = run_event(
        stack.a
    )  # a later accepted event: once it is projected, so would be `allowed`
    assert stack.ingest("writer-a", [marker]).status_code == 202
    await_true(stack.driver, "MATCH (r:Run {id: $id}) RETURN count(r)", id=marker.subject)
    records, _, _ = stack.driver.execute_query(
        "MATCH (r:Run) WHERE r.id IN $ids RETURN count(r) AS c",
        ids=[allowed.subject, refused.subject],
    )
    assert records[0]["c"] == 0


def test_openlineage_needs_writer_on_the_mapped_project(stack: Stack) -> None:
    event = {
        "eventType": "START",
        "eventTime": "2026-01-05T10:00:00Z",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": stack.a, "name": "etl"},
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }
    url = f"{stack.apps.settings.ingest_url}/api/v1/lineage"
    for who, status in (("writer-a", 201), ("reader-b", 403), ("admin-a", 201), (None, 401)):
        answer = httpx.post(url, json=event, headers=stack.headers(who), timeout=30)
        assert answer.status_code == status, (who, answer.text)


# --- query: isolation -------------------------------------------------------------------------


def _node_answer(stack: Stack, who: str, node_id: str) -> Any:
    answer = stack.graphql(who, f'{{ node(id: "{node_id}") {{ id project }} }}')
    assert answer.status_code == 200
    return answer.json()


def test_a_node_of_another_project_is_answered_like_a_missing_one(stack: Stack) -> None:
    assert _node_answer(stack, "reader-a", stack.base_model)["data"]["node"]["project"] == stack.a
    hidden = _node_answer(stack, "reader-b", stack.base_model)
    missing = _node_answer(stack, "reader-b", f"model:{stack.a}/nothing@1.0")
    assert hidden["data"] == missing["data"] == {"node": None}
    assert hidden["errors"][0]["extensions"] == missing["errors"][0]["extensions"]
    same = missing["errors"][0]["message"].replace(f"model:{stack.a}/nothing@1.0", "ID")
    assert hidden["errors"][0]["message"].replace(stack.base_model, "ID") == same


def test_aliases_and_fragments_cannot_reach_another_project(stack: Stack) -> None:
    query = f"""
    query {{
      mine: node(id: "{stack.chat_model}") {{ ...F }}
      theirs: node(id: "{stack.base_model}") {{ ...F }}
      also: modelVersion(name: "base", version: "1.0", project: "{stack.a}") {{ id }}
    }}
    fragment F on Node {{
      id
      ... on ModelVersion {{ producedBy {{ id startedFrom {{ id }} }} }}
    }}
    """
    answer = stack.graphql("reader-b", query).json()
    assert answer["data"]["theirs"] is None and answer["data"]["also"] is None
    assert answer["data"]["mine"]["producedBy"]["startedFrom"] is None  # A's model: hidden
    both = stack.graphql("reader-ab", query).json()["data"]
    assert both["mine"]["producedBy"]["startedFrom"]["id"] == stack.base_model
    assert both["theirs"]["id"] == both["also"]["id"] == stack.base_model


def _lineage_projects(stack: Stack, who: str) -> set[str]:
    query = f'{{ lineage(id: "{stack.chat_model}", direction: UPSTREAM, depth: 6) {{ nodes {{ id project }} }} }}'  # noqa: E501
    nodes = stack.graphql(who, query).json()["data"]["lineage"]["nodes"]
    return {n["project"] for n in nodes}


def test_cross_project_lineage_is_whole_only_for_who_reads_both(stack: Stack) -> None:
    assert _lineage_projects(stack, "reader-ab") == {stack.a, stack.b}
    assert _lineage_projects(stack, "reader-b") == {stack.b}  # stops at the boundary
    assert _lineage_projects(stack, "auditor") == {stack.a, stack.b}


def test_lists_search_and_rest_hide_other_projects(stack: Stack) -> None:
    listing = (
        f'{{ nodes(type: MODEL_VERSION, filter: {{ project: "{stack.a}" }}) {{ items {{ id }} }} }}'
    )
    assert stack.graphql("reader-b", listing).json()["data"]["nodes"]["items"] == []
    assert stack.graphql("reader-a", listing).json()["data"]["nodes"]["items"] != []
    search = f'{{ search(text: "{stack.a}/base") {{ id }} }}'
    assert stack.graphql("reader-b", search).json()["data"]["search"] == []
    assert stack.graphql("writer-a", search).json()["data"]["search"] == []  # write != read
    rest = f"{stack.apps.settings.query_url}/api/v1/lineage"
    params = {"nodeId": stack.base_model, "depth": "1"}
    assert httpx.get(rest, params=params, headers=stack.headers("reader-b")).status_code == 404
    assert httpx.get(rest, params=params, headers=stack.headers("reader-a")).status_code == 200
    assert httpx.get(rest, params=params).status_code == 401


@pytest.mark.parametrize(
    ("who", "status"),
    [
        ("auditor", 200),
        ("admin", 200),
        ("reader-ab", 403),
        ("writer-a", 403),
        ("admin-a", 403),
        ("nobody", 403),
        (None, 401),
    ],
)
def test_cypher_is_for_global_auditors_only(stack: Stack, who: str | None, status: int) -> None:
    answer = stack.cypher(who)
    assert answer.status_code == status, answer.text
    if status == 403:
        assert "auditor" in answer.json()["error"]["message"]


def test_a_grant_then_a_revoke_apply_to_the_next_request(stack: Stack) -> None:
    principal = stack.names["nobody"]
    key = f"access.{principal}.reader"
    project_node = "MATCH (g:Project {id: $g}) RETURN g[$k] = $state"
    params = {"g": f"project:{stack.a}", "k": key}
    assert _node_answer(stack, "nobody", stack.base_model)["data"]["node"] is None
    base = ("--principal", principal, "--project", stack.a, "--role", "reader")
    stack.cli("grant", *base)
    await_true(stack.driver, project_node, state="granted", **params)
    time.sleep(CACHE_BOUND_S)
    assert _node_answer(stack, "nobody", stack.base_model)["data"]["node"]["id"] == stack.base_model
    stack.cli("revoke", *base)
    await_true(stack.driver, project_node, state="revoked", **params)
    time.sleep(CACHE_BOUND_S)
    assert _node_answer(stack, "nobody", stack.base_model)["data"]["node"] is None


def test_sdk_sends_the_token(stack: Stack) -> None:
    from provgraph.client import HttpTransport, RejectedError

    HttpTransport(stack.apps.settings.ingest_url, token=stack.tokens["writer-a"]).send(
        [run_event(stack.a)]
    )
    with pytest.raises(RejectedError, match="403"):
        HttpTransport(stack.apps.settings.ingest_url, token=stack.tokens["writer-a"]).send(
            [run_event(stack.b)]
        )
