"""What ingest checks of a batch beyond the contract: event identity and the client's clock.

- An `event_id` means one payload forever (its hash: `provgraph.schemas.event_hash`). Within
  a batch, one event_id with two payloads is refused (422); an event_id already applied with
  another payload is a conflict (409). The same event again is a retry: accepted.
- `occurred_at` is a claim of the client's clock; more than `max_clock_skew_s` ahead of the
  server's is refused (422), as the projector dead-letters it against the log's append time.
- The records discipline (`projection.discipline`): a snapshot that changes a recorded
  environment is a conflict (409 `environment_changed`), a run.completed without the
  conclusion its project requires is refused (422 `conclusion_required`), a record without
  another element its project requires, or a run that trains on data whose quality gates did
  not pass, is refused (422 `record_incomplete`, naming what is missing); under the
  project's conventions, a new record whose name breaks its naming rule (422
  `name_breaks_rule`), an output out of place (422 `place_refused`) and one at a URI another
  job's output holds (409 `place_taken`) are refused.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Sequence
from datetime import UTC, datetime, timedelta
from typing import Protocol, TypeVar

from provgraph.ingest.http.errors import (
    ConclusionRequiredError,
    EnvironmentChangedError,
    EventIdConflictError,
    GraphUnavailableError,
    NameBreaksRuleError,
    PlaceRefusedError,
    PlaceTakenError,
    RecordIncompleteError,
    RequestError,
)
from provgraph.ingest.ports import FactsLookup
from provgraph.ingest.projection import project_event
from provgraph.ingest.projection.completeness import RecordIncomplete
from provgraph.ingest.projection.conventions_rule import NameBreaksRule, PlaceRefused, PlaceTaken
from provgraph.ingest.projection.discipline import (
    ConclusionRequired,
    EnvironmentChanged,
    append_steps,
    judge,
)
from provgraph.ingest.projection.mutations import ProjectionError
from provgraph.ingest.screening import discipline_facts
from provgraph.schemas import BatchError, ErrorCode, Event, event_hash
from provgraph.schemas.storage import format_time

log = logging.getLogger(__name__)

T = TypeVar("T")


class PayloadHashes(Protocol):
    """The payload hash of each applied event, by event_id, as the graph holds them now."""

    def payload_hashes(self, event_ids: Collection[str]) -> dict[str, str]:
        """The stored hash of each of `event_ids` that is applied (absent: not applied)."""
        ...


def batch_duplicates(events: Sequence[Event]) -> list[BatchError]:
    """An error for each event whose event_id an earlier event of the batch carries with
    another payload."""
    first: dict[str, tuple[int, str]] = {}
    errors: list[BatchError] = []
    for index, event in enumerate(events):
        event_id, digest = str(event.event_id), event_hash(event)
        seen = first.setdefault(event_id, (index, digest))
        if seen[1] != digest:
            reason = (
                f"event_id {event_id} is also event {seen[0]} of the batch, with another "
                "payload: an event_id names one payload (resend the same event, or a new id)"
            )
            errors.append(BatchError(index, "event_id", reason, ErrorCode.DUPLICATE_EVENT_ID))
    return errors


def future_events(
    events: Sequence[Event], max_skew_s: float, now: datetime | None = None
) -> list[BatchError]:
    """An error for each event whose occurred_at is more than `max_skew_s` after `now`."""
    now = now or datetime.now(UTC)
    bound = now + timedelta(seconds=max_skew_s)
    return [
        BatchError(
            index,
            "occurred_at",
            f"occurred_at {format_time(event.occurred_at)} is more than max_clock_skew_s="
            f"{max_skew_s:g} s after the server's clock ({format_time(now)}): send events "
            "when they happen, with the time they happened",
            ErrorCode.OCCURRED_AT_IN_FUTURE,
        )
        for index, event in enumerate(events)
        if event.occurred_at > bound
    ]


def check_applied(
    events: Sequence[Event], lookup: PayloadHashes, retry_after_s: int = 5
) -> set[str]:
    """Raise `EventIdConflictError` for the first event whose event_id is applied with
    another payload (one read of the stored hashes); `GraphUnavailableError` when the graph
    cannot be read. Returns the event_ids applied already with the same payload (retries)."""
    ids = {str(event.event_id) for event in events}
    stored = _read_graph(
        lambda: lookup.payload_hashes(ids),
        f"the payload hashes of {len(ids)} events",
        "the applied events cannot be read now; retry the same events later",
        retry_after_s,
    )
    for index, event in enumerate(events):
        event_id = str(event.event_id)
        applied = stored.get(event_id)
        if applied is not None and applied != event_hash(event):
            raise EventIdConflictError(
                f"event {index}: event_id {event_id} is already applied with another payload; "
                "an event_id names one payload forever (send a new event_id for a new event); "
                "nothing of the batch was written",
                index=index,
                event_id=event_id,
                stored_hash=applied,
                payload_hash=event_hash(event),
            )
    return set(stored)


def check_discipline(
    events: Sequence[Event],
    lookup: FactsLookup,
    applied: Collection[str] = (),
    retry_after_s: int = 5,
) -> list[int]:
    """Raise for the first event that breaks the records discipline, judged in request order
    from the graph as it is now (one read): `EnvironmentChangedError` (409) naming the key and
    the differing fields, `ConclusionRequiredError` (422) naming the run,
    `RecordIncompleteError` (422) naming the record and what it lacks, `NameBreaksRuleError`
    (422) naming the record, its rule and the name it builds, `PlaceRefusedError` (422)
    naming the output, its URI and the storage roots, `PlaceTakenError` (409) naming the other
    job's output at the same URI;
    `GraphUnavailableError` when the graph cannot be read. An event in `applied` (a retry of
    an applied event) was judged when it was first appended and is left out.

    Returns where the request must be appended in steps for the log's order to agree with
    the request's wherever a verdict depends on it (`discipline.append_steps`: indexes of
    `events` starting a step; [0] for one step)."""
    fresh = [i for i, event in enumerate(events) if str(event.event_id) not in applied]
    changes = [project_event(events[i]) for i in fresh]
    facts = _read_graph(
        lambda: discipline_facts(lookup, changes),
        f"the discipline facts of {len(changes)} events",
        "recorded environments and project policies cannot be read now; retry later",
        retry_after_s,
    )
    for index, verdict in zip(fresh, judge(changes, facts, by_log=False), strict=True):
        if verdict is not None:
            raise _discipline_error(index, events[index], verdict)
    return [0] + [fresh[i] for i in append_steps(changes, facts)[1:]]


def _read_graph(read: Callable[[], T], what: str, message: str, retry_after_s: int) -> T:
    """`read()`; when the graph cannot answer, `GraphUnavailableError` with `message`."""
    try:
        return read()
    except Exception as exc:  # the graph is down: not the caller's fault, retry later
        log.warning("cannot read %s: %s", what, exc)
        raise GraphUnavailableError(message, retry_after_s=retry_after_s) from exc


def _discipline_error(index: int, event: Event, verdict: ProjectionError) -> RequestError:
    where = f"event {index} ({event.event_type}): {verdict}; nothing of the batch was written"
    if isinstance(verdict, EnvironmentChanged):
        details = {
            "index": index,
            "environment": verdict.environment,
            "key": getattr(event.payload, "key", None),
            "differing": list(verdict.fields),
        }
        return EnvironmentChangedError(where, details)
    if isinstance(verdict, RecordIncomplete):
        return RecordIncompleteError(where, _incomplete_details(index, verdict))
    if isinstance(verdict, NameBreaksRule):
        named = {"record": verdict.record, "kind": verdict.kind.value, "rule": verdict.rule}
        why = {"problem": verdict.problem, "suggestion": verdict.suggestion}
        return NameBreaksRuleError(where, {"index": index, **named, **why})
    if isinstance(verdict, PlaceTaken):
        place = {"record": verdict.record, "uri": verdict.uri}
        other = {"other": verdict.other, "other_job": verdict.other_job}
        return PlaceTakenError(where, {"index": index, **place, **other})
    if isinstance(verdict, PlaceRefused):
        place = {"record": verdict.record, "uri": verdict.uri, "problem": verdict.problem}
        roots = {"storage_roots": list(verdict.roots)}
        return PlaceRefusedError(where, {"index": index, **place, **roots})
    run = verdict.run if isinstance(verdict, ConclusionRequired) else event.subject
    return ConclusionRequiredError(where, {"index": index, "run": run, "project": event.project})


def _incomplete_details(index: int, verdict: RecordIncomplete) -> dict[str, object]:
    """What a `record_incomplete` answer names: the record, its kind and project, every
    element missing, and each dataset version trained on that did not pass its gates."""
    gates = [
        {"dataset_version": g.dataset_version, "failed": list(g.failed)} for g in verdict.gates
    ]
    return {
        "index": index,
        "record": verdict.record,
        "kind": verdict.kind.value,
        "project": verdict.project,
        "missing": list(verdict.missing),
        "gates": gates,
    }
