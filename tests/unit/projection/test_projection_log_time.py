"""The server's time in the fold: who wins among grants, tokens and deletes is decided by the
log's append time, never by a client's `occurred_at`; the fold stays pure (the log's stamp is
an input), and without a stamp it falls back to `occurred_at`."""

from __future__ import annotations

import json
from pathlib import Path

from provgraph.ingest.projection import LogStamp, project_event
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import Event, parse_event

EXAMPLES = Path(__file__).parents[3] / "schemas" / "examples" / "valid"
PRINCIPAL = "principal:service:trainer"


def example(name: str, **changes: object) -> Event:
    data = json.loads((EXAMPLES / f"{name}.json").read_text())
    data.update(changes)
    return parse_event(json.dumps(data))


def at(minute: int) -> LogStamp:
    return LogStamp(logged_at=f"2024-06-01T00:{minute:02d}:00.000000Z")


def principal_after(*changes: tuple[Event, LogStamp]) -> dict[str, object]:
    graph = MemoryGraph()
    for event, stamp in changes:
        graph.apply(project_event(event, stamp))
    return graph.nodes[PRINCIPAL][1]


def test_a_token_revoked_after_a_reissue_in_the_log_disables_it_whatever_the_claims() -> None:
    # The re-issue claims a far-future time; the revocation was logged after it.
    issued = example("token.issued", occurred_at="2999-01-01T00:00:00Z")
    revoked = example("token.revoked", occurred_at="2000-01-01T00:00:00Z")
    for order in (((issued, at(1)), (revoked, at(2))), ((revoked, at(2)), (issued, at(1)))):
        props = principal_after(*order)
        assert props["token_issued_at"] == "2024-06-01T00:01:00.000000Z"
        assert props["revoked_at"] == "2024-06-01T00:02:00.000000Z"
        assert str(props["revoked_at"]) > str(props["token_issued_at"])  # the token is dead


def test_a_token_issued_after_a_revocation_in_the_log_is_valid() -> None:
    issued = example("token.issued", occurred_at="2000-01-01T00:00:00Z")
    revoked = example("token.revoked", occurred_at="2999-01-01T00:00:00Z")
    props = principal_after((revoked, at(1)), (issued, at(2)))
    assert str(props["revoked_at"]) < str(props["token_issued_at"])


def test_a_grant_logged_later_wins_over_an_earlier_revoke_with_a_later_claim() -> None:
    grant = example("access.granted", occurred_at="2000-01-01T00:00:00Z")
    revoke = example("access.revoked", occurred_at="2999-01-01T00:00:00Z")
    graph = MemoryGraph()
    graph.apply(project_event(grant, at(5)))
    graph.apply(project_event(revoke, at(4)))
    project = graph.nodes["project:llm-pretrain"][1]
    assert project["access.user:carol.auditor"] == "granted"


def test_without_a_log_stamp_the_fold_orders_by_occurred_at_as_before() -> None:
    issued = example("token.issued")
    change = project_event(issued)
    (node,) = change.mutations
    assert node.lww["token_issued_at"].value == change.record.occurred_at  # type: ignore[union-attr]
    assert (change.record.logged_at, change.record.principal) == (None, None)


def test_the_applied_event_records_the_stamp_and_the_payload_hash() -> None:
    event = example("run.started")
    stamp = LogStamp(logged_at="2024-06-01T00:00:00.000000Z", principal="principal:user:alice")
    record = project_event(event, stamp).record
    assert (record.logged_at, record.principal) == (stamp.logged_at, stamp.principal)
    assert record.payload_hash.startswith("sha256:") and len(record.payload_hash) == 71
    assert project_event(event).record.payload_hash == record.payload_hash  # not in the hash
