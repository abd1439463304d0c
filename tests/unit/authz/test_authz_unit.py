"""Rights per role, the ingest rule per event type, and the authenticator's cache bound."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest
from support.memory_stores import MemoryPrincipals

from provgraph.authz import (
    Authenticator,
    ForbiddenError,
    Principal,
    Right,
    UnauthenticatedError,
    authorize_events,
    bearer_token,
    hash_token,
    new_token,
)
from provgraph.authz.admin import access_event, token_issued, token_revoked
from provgraph.authz.guard import warn_if_disabled
from provgraph.authz.store import grants_by_project
from provgraph.authz.tokens import principal_name
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import EntityDeleted, RunStarted
from provgraph.schemas.events.experiment import RunStartedPayload
from provgraph.schemas.events.governance import AccessRole, EntityDeletedPayload
from provgraph.schemas.events.tokens import GlobalRole

META = {"producer": "https://example.com/t", "actor": "user:t"}


def _run(project: str) -> RunStarted:
    return RunStarted.create(project=project, **META, payload=RunStartedPayload(run_id="r-1"))


def _delete(project: str) -> EntityDeleted:
    payload = EntityDeletedPayload(entity=f"dataset:{project}/d@v1", reason="gone")
    return EntityDeleted.create(project=project, **META, payload=payload)


@pytest.mark.parametrize(
    ("role", "rights"),
    [
        ("reader", {Right.READ}),
        ("writer", {Right.WRITE}),
        ("admin", {Right.READ, Right.WRITE, Right.ADMIN}),
        ("delete", {Right.DELETE}),
        ("auditor", {Right.READ}),
    ],
)
def test_rights_of_each_project_role(role: str, rights: set[Right]) -> None:
    who = Principal("user:a", roles={"p": frozenset({role})})
    assert {r for r in Right if who.can(r, "p")} == rights
    assert not any(who.can(r, "q") for r in Right)
    assert not who.may_use_cypher


def test_global_roles() -> None:
    admin = Principal("user:root", frozenset({"admin"}))
    auditor = Principal("user:audit", frozenset({"auditor"}))
    assert all(admin.can(r, "any") for r in Right) and admin.may_use_cypher
    assert auditor.can(Right.READ, "any") and not auditor.can(Right.WRITE, "any")
    assert auditor.may_use_cypher and auditor.readable_projects() is None
    reader = Principal("user:r", roles={"p": frozenset({"reader"}), "q": frozenset({"writer"})})
    assert reader.readable_projects() == frozenset({"p"})


def test_ingest_rule_per_event_type() -> None:
    writer = Principal("user:w", roles={"p": frozenset({"writer"})})
    authorize_events(writer, [_run("p")])
    with pytest.raises(ForbiddenError) as refused:
        authorize_events(writer, [_run("p"), _delete("p")])
    assert refused.value.details == {
        "index": 1,
        "right": "delete",
        "project": "p",
        "event_type": "entity.deleted",
    }
    grant = access_event("user:x", "p", AccessRole.READER, "user:t", grant=True)
    with pytest.raises(ForbiddenError, match="'admin' right on project 'p'"):
        authorize_events(writer, [grant])
    project_admin = Principal("user:a", roles={"p": frozenset({"admin"})})
    authorize_events(project_admin, [grant, _run("p")])
    with pytest.raises(ForbiddenError, match="global admin"):
        authorize_events(project_admin, [token_issued("user:x", new_token(), [], "user:t")])


def test_tokens_hash_and_bearer_parsing() -> None:
    token = new_token()
    assert token.startswith("pgt_") and len(token) > 40 and token != new_token()
    assert hash_token(token).startswith("sha256:") and len(hash_token(token)) == 71
    assert bearer_token(f"Bearer {token}") == bearer_token(f"bearer  {token} ") == token
    assert bearer_token(None) is bearer_token("Basic abc") is bearer_token("Bearer ") is None
    assert principal_name("alice") == "user:alice"
    assert principal_name("service:ci") == "service:ci"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_answers_are_cached_for_at_most_the_bound() -> None:
    token = new_token()
    source = MemoryPrincipals({hash_token(token): Principal("user:a")})
    clock = Clock()
    authn = Authenticator(source, cache_s=1.0, clock=clock)
    header = f"Bearer {token}"
    assert authn.authenticate(header).name == "user:a"
    source.principals.clear()  # revoked in the store
    clock.now += 0.99
    assert authn.authenticate(header).name == "user:a"  # within the bound: the cached answer
    clock.now += 0.02
    with pytest.raises(UnauthenticatedError):
        authn.authenticate(header)  # past the bound: read again, refused


def test_missing_and_unknown_tokens_are_the_same_error() -> None:
    authn = Authenticator(MemoryPrincipals(), cache_s=1.0)
    errors = []
    for header in (None, "Bearer pgt_unknown", "Token x"):
        with pytest.raises(UnauthenticatedError) as caught:
            authn.authenticate(header)
        errors.append((caught.value.status, caught.value.code, caught.value.message))
    assert len(set(errors)) == 1 and errors[0][0] == 401


def test_disabled_is_logged_loudly(caplog: pytest.LogCaptureFixture) -> None:
    authn = Authenticator(None, disabled=True)
    with caplog.at_level(logging.WARNING):
        warn_if_disabled(authn, "ingest")
    assert "AUTHENTICATION IS DISABLED" in caplog.text
    assert authn.authenticate(None).may_use_cypher


def test_expired_grants_are_left_out() -> None:
    rows = [{"project": "p", "roles": [["reader", ""], ["writer", "2020-01-01T00:00:00.000000Z"]]}]
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert grants_by_project(rows, now) == {"p": frozenset({"reader"})}


def test_token_fold_is_order_insensitive() -> None:
    """issue, revoke, re-issue: the last token works in any arrival order."""
    first, second = new_token(), new_token()
    events = [
        token_issued("user:a", first, [GlobalRole.AUDITOR], "user:t"),
        token_revoked("user:a", "user:t"),
        token_issued("user:a", second, [], "user:t"),
    ]
    for order in ([0, 1, 2], [2, 1, 0], [1, 2, 0]):
        graph = MemoryGraph().fold(events[i] for i in order)
        _label, props = graph.nodes["principal:user:a"]
        assert props["token_hash"] == hash_token(second)
        assert props["revoked_at"] < props["token_issued_at"]
        assert list(props["global_roles"]) == []


@pytest.mark.parametrize("role", [AccessRole.DELETE, AccessRole.ADMIN])
def test_only_global_admins_grant_delete_and_admin(role: AccessRole) -> None:
    project_admin = Principal("user:pa", roles={"p": frozenset({"admin"})})
    for grantee in ("user:pa", "user:friend"):  # itself or anyone
        grant = access_event(grantee, "p", role, "user:pa", grant=True)
        with pytest.raises(ForbiddenError) as refused:
            authorize_events(project_admin, [_run("p"), grant])
        assert refused.value.status == 403
        assert refused.value.message == (
            f"granting the {role.value!r} role needs the global admin role"
        )
        assert refused.value.details == {
            "index": 1,
            "right": "global admin",
            "event_type": "access.granted",
        }
    root = Principal("user:root", frozenset({"admin"}))
    authorize_events(root, [access_event("user:pa", "p", role, "user:root", grant=True)])


def test_project_admins_still_grant_the_other_roles_and_revoke() -> None:
    project_admin = Principal("user:pa", roles={"p": frozenset({"admin"})})
    grants = [
        access_event("user:x", "p", role, "user:pa", grant=True)
        for role in (AccessRole.READER, AccessRole.WRITER, AccessRole.AUDITOR)
    ]
    revokes = [
        access_event("user:x", "p", role, "user:pa", grant=False)
        for role in (AccessRole.DELETE, AccessRole.ADMIN)
    ]
    authorize_events(project_admin, [*grants, *revokes])
    with pytest.raises(ForbiddenError, match="'admin' right on project 'q'"):
        authorize_events(
            project_admin, [access_event("user:x", "q", AccessRole.READER, "u", grant=True)]
        )
