"""Token and grant management: build the events and append them straight to the event log.

These commands are operator tools: they need the Kafka connection (`.provgraph/env`), which
already allows writing any event, so they do not go through the ingest service. Callers with
only a token use `POST /v1/events` with `access.*` events (project admin) instead. Appends go
through the event-log port (validated by the contract, idempotent producer), like ingest's.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

from provgraph.authz.tokens import hash_token, new_token
from provgraph.client.eventlog import Appended, EventLog
from provgraph.core.eventlog import open_event_log
from provgraph.core.settings import KafkaSettings
from provgraph.schemas import AccessGranted, AccessRevoked, Event, ProjectPolicySet
from provgraph.schemas.events.governance import (
    AccessGrantedPayload,
    AccessRevokedPayload,
    AccessRole,
)
from provgraph.schemas.events.policy import policy_payload
from provgraph.schemas.events.tokens import (
    SYSTEM_PROJECT,
    GlobalRole,
    TokenIssued,
    TokenIssuedPayload,
    TokenRevoked,
    TokenRevokedPayload,
)
from provgraph.schemas.records import RecordKind
from provgraph.schemas.version import __version__

PRODUCER = f"https://provgraph.dev/cli/{__version__}"
BOOTSTRAP_ADMIN = "service:bootstrap-admin"
"""Prefix of the bootstrap principal's name; a random suffix keeps two installations sharing
one Kafka from replacing each other's token."""


def token_issued(name: str, token: str, roles: Sequence[GlobalRole], actor: str) -> TokenIssued:
    payload = TokenIssuedPayload(name=name, token_hash=hash_token(token), global_roles=list(roles))
    return TokenIssued.create(
        project=SYSTEM_PROJECT, producer=PRODUCER, actor=actor, payload=payload
    )


def token_revoked(name: str, actor: str, reason: str | None = None) -> TokenRevoked:
    payload = TokenRevokedPayload(name=name, reason=reason)
    return TokenRevoked.create(
        project=SYSTEM_PROJECT, producer=PRODUCER, actor=actor, payload=payload
    )


def access_event(
    principal: str, project: str, role: AccessRole, actor: str, *, grant: bool
) -> AccessGranted | AccessRevoked:
    if grant:
        granted = AccessGrantedPayload(principal=principal, project=project, role=role)
        return AccessGranted.create(
            project=project, producer=PRODUCER, actor=actor, payload=granted
        )
    revoked = AccessRevokedPayload(principal=principal, project=project, role=role)
    return AccessRevoked.create(project=project, producer=PRODUCER, actor=actor, payload=revoked)


def policy_set(
    project: str,
    actor: str,
    *,
    require_conclusion: bool = False,
    required: Mapping[RecordKind, Sequence[str]] | None = None,
    require_passed_gates: bool = False,
    reason: str | None = None,
    **conventions: Any,
) -> ProjectPolicySet:
    """The ``project.policy.set`` event restating `project`'s policy: the elements `required`
    of each kind (a conclusion of runs too with `require_conclusion`), whether runs may
    train only on data whose quality gates passed, and the `conventions`
    (`policy_payload`'s keywords). `ValueError` names an unknown element, fact or kind."""
    payload = policy_payload(
        required,
        require_conclusion=require_conclusion,
        require_passed_gates=require_passed_gates,
        reason=reason,
        **conventions,
    )
    return ProjectPolicySet.create(project=project, producer=PRODUCER, actor=actor, payload=payload)


def append_to_log(events: Sequence[Event], settings: KafkaSettings) -> list[Appended]:
    """Append `events` to the event log (its topics created when missing) and wait for every
    acknowledgement; `TransportError` or `RejectedError` when that cannot be done."""
    with closing(open_event_log(settings, client_id="provgraph-admin")) as log:
        return log.append(events)


def bootstrap_admin_token(path: Path, log: EventLog) -> str | None:
    """Issue a global admin token once: append it to `log`, write it to `path` (mode 0600).

    Returns the new token, or None when `path` already holds one.
    """
    if path.exists():
        return None
    token = new_token()
    name = f"{BOOTSTRAP_ADMIN}-{secrets.token_hex(4)}"
    log.append([token_issued(name, token, [GlobalRole.ADMIN], actor="service:provgraph")])
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(token + "\n")
    return token
