"""Dead letters without a broker: the store check, the reasons of old and new letters, and which
letters a redrive appends back to the log (parked ones the reader understands now)."""

from __future__ import annotations

import json

import pytest
from contracts.projector_ports import Record
from support.projection_story import Story

from provgraph.client.kafka_log import Record as LogRecordOut
from provgraph.ingest.projection import EventMutations, project_event
from provgraph.ingest.projection.mutations import EdgeUpsert, NodeUpsert, Versioned
from provgraph.ingest.projector.batch import Parsed, parse_records
from provgraph.ingest.projector.deadletter import headers_for
from provgraph.ingest.projector.redrive import DeadLetter, redrive, understood
from provgraph.ingest.projector.rejections import PARKED, StoreRejected
from provgraph.ingest.projector.storable import check_storable
from provgraph.ingest.tools.deadletter_cli import describe_letter
from provgraph.schemas import UnknownEventTypeError
from provgraph.schemas.graph import Label, Rel

S = Story("p")


def with_value(change: EventMutations, value: object) -> EventMutations:
    """`change` with one more node property holding `value`."""
    versioned = {"v": Versioned("1", value)}  # type: ignore[arg-type]
    node = NodeUpsert("run:x", Label.RUN, "p", True, "t", "t", lww=versioned)
    return EventMutations(change.record, (*change.mutations, node))


@pytest.mark.parametrize(
    ("value", "why"),
    [
        (2**63, "outside 64 bits"),
        (-(2**63) - 1, "outside 64 bits"),
        (("a", 1), "mixed types"),
        ((True, 1), "mixed types"),
        ((("a",),), "nested"),
        ({"a": 1}, "not a property value"),
        ("\ud800", "lone surrogate"),
        (float("inf"), "not a finite number"),
        ((None,), "not a property value"),
    ],
)
def test_values_neo4j_cannot_store_are_refused_before_any_write(value: object, why: str) -> None:
    with pytest.raises(StoreRejected, match=why):
        check_storable(with_value(project_event(S.started()), value))


@pytest.mark.parametrize("value", [2**63 - 1, -(2**63), (1, 2.5), (), ("a", "b"), 0.5, True])
def test_values_neo4j_stores_pass(value: object) -> None:
    check_storable(with_value(project_event(S.started()), value))


def test_a_relationship_property_is_checked_too() -> None:
    change = project_event(S.started())
    edge = EdgeUpsert("run:x", Label.RUN, Rel.USED, "run:y", Label.RUN, props={"w": 2**64})
    with pytest.raises(StoreRejected, match="USED"):
        check_storable(EventMutations(change.record, (*change.mutations, edge)))


def test_a_record_whose_fold_the_store_cannot_hold_is_poison_when_parsed() -> None:
    """Decided from the event alone: live, `replay` and `verify` refuse the same record."""
    raw = S.started().to_json_bytes().replace(b'"lr":0.1', b'"lr":1e400')
    parsed = parse_records([Record("t", 0, 0, b"k", raw, 1)])
    assert parsed.entries == [] and len(parsed.poison) == 1


def test_checks_against_the_store_move_entries_to_the_poison_in_order() -> None:
    records = [Record("t", 0, i, b"k", e.to_json_bytes(), 1) for i, e in enumerate(S_EVENTS)]
    parsed = parse_records(records)
    refused = ValueError("no")
    parsed.reject([None, refused, None])
    assert [r.offset for r, _ in parsed.entries] == [0, 2]
    assert parsed.poison == [(records[1], refused)]
    assert Parsed().changes == []


S_EVENTS = [S.started(), S.completed(5, 2), S.checkpoint_saved(3, 3)]


def letter(value: bytes, error: BaseException, offset: int = 0) -> DeadLetter:
    own = (("provgraph-principal", b"principal:user:a"),)
    record = Record("provgraph.events", 1, 40 + offset, b"key", value, 1, own)
    return DeadLetter(0, offset, b"key", value, tuple(headers_for(record, error)))


def test_a_letter_says_its_reason_error_and_source_and_gives_back_the_record_as_it_was() -> None:
    got = letter(b"{}", ValueError("not\nan event"))
    where = "provgraph.events/1@40"
    assert (got.reason, got.error, got.source) == ("contract", "not an event", where)
    record: LogRecordOut = got.record()
    assert record == (b"key", b"{}", [("provgraph-principal", b"principal:user:a")])


def test_a_listed_letter_names_its_principal_as_issued_and_keeps_its_record_as_stamped() -> None:
    shown = describe_letter(letter(b"{}", ValueError("bad")))
    assert "principal: user:a\n" in shown
    assert "principal:user" not in shown


def test_letters_written_before_reason_headers_get_their_reason_from_the_error_class() -> None:
    old = DeadLetter(0, 0, None, b"{}", (("error.class", b"UnknownEventTypeError"),))
    older = DeadLetter(0, 1, None, b"{}", (("error.class", b"FutureSchemaVersionError"),))
    other = DeadLetter(0, 2, None, b"{}", (("error.class", b"MalformedEventError"),))
    assert [old.reason, older.reason, other.reason] == [
        "unknown_type",
        "unsupported_version",
        "contract",
    ]


def test_redrive_appends_the_parked_letters_understood_now_and_only_those() -> None:
    unknown = json.loads(S.started().to_json_bytes())
    unknown["event_type"] = "run.teleported"
    still = json.dumps(unknown).encode()
    now_known = S.completed(5, 2).to_json_bytes()  # parked by an older reader, known here
    letters = [
        letter(now_known, UnknownEventTypeError([]), 0),
        letter(still, UnknownEventTypeError([]), 1),
        letter(b"not json", ValueError("bad"), 2),  # not parked: left alone
        letter(S.started().to_json_bytes(), StoreRejected("x"), 3),
    ]
    appended: list[list[LogRecordOut]] = []
    done = redrive([letters[:2], letters[2:]], PARKED, appended.append)
    assert appended == [[(b"key", now_known, [("provgraph-principal", b"principal:user:a")])]]
    assert (done.read, done.matched, done.appended, done.left) == (4, 2, 1, 1)
    assert understood(letters[3]) and not understood(letters[1])
    chosen = redrive([letters], frozenset({"store_rejected"}), appended.append)
    assert (chosen.appended, chosen.by_reason) == (1, {"store_rejected": 1})
