"""The ownership screen against a store: one owners lookup per batch, then the pure rule.

Ingest runs it on every batch before appending (`authorize_ownership`: 403 naming the entity
and its owner). The projector runs it before each write, `replay` before each batch it
rebuilds and `verify` before each event it folds, all in log order (`log_order`), so a change
that writes another project's entity has no effect in any of them (`projection.ownership`
holds the rule and the OpenLineage exception).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TypeVar

from provgraph.authz import AuthUnavailableError, ForbiddenError, Principal, Right
from provgraph.ingest.log_order import in_log_order
from provgraph.ingest.ports import BatchWriter, FactsLookup, LogRecord, OwnerLookup
from provgraph.ingest.projection import project_event
from provgraph.ingest.projection.discipline import RecordFacts, judge, lookups, places_wanted
from provgraph.ingest.projection.mutations import EventMutations, ProjectionError
from provgraph.ingest.projection.ownership import (
    OPENLINEAGE_PREFIX,
    OwnershipError,
    StampedRights,
    Verdict,
    lookup_ids,
    screen,
)
from provgraph.schemas import Event

log = logging.getLogger(__name__)

S = TypeVar("S")
R = TypeVar("R", bound=ProjectionError)


class CallerRights:
    """`ownership.Rights` of an authenticated caller: its grants as ingest sees them now."""

    def __init__(self, caller: Principal) -> None:
        self.caller = caller

    def may_write(self, change: EventMutations, project: str) -> bool:
        """True when the caller holds writer on `project`."""
        return self.caller.can(Right.WRITE, project)


def authorize_ownership(caller: Principal, events: Sequence[Event], lookup: OwnerLookup) -> None:
    """Raise `ForbiddenError` for the first event that writes an entity another project owns,
    or references one of a project the caller cannot read (one read of the owners)."""
    changes = [project_event(event) for event in events]
    ids = lookup_ids(changes)
    try:
        owners = lookup.owners(ids) if ids else {}
    except Exception as exc:  # the graph is down: not the caller's fault, retry later
        log.warning("cannot read the owners of %d entities: %s", len(ids), exc)
        raise AuthUnavailableError("the owners of the batch's entities cannot be read now") from exc
    for index, verdict in enumerate(screen(changes, owners, CallerRights(caller))):
        _refuse(caller, events[index], index, verdict)


def _refuse(caller: Principal, event: Event, index: int, verdict: Verdict) -> None:
    where = f"event {index} ({event.event_type})"
    if verdict.violation is not None:
        v = verdict.violation
        writable = event.event_type.startswith(OPENLINEAGE_PREFIX) and v.entity.startswith(
            "dataset:"
        )
        need = (
            f" (an OpenLineage output needs the 'writer' right on {v.owner!r})" if writable else ""
        )
        raise ForbiddenError(
            f"{where}: {v}{need}; nothing of the batch was written",
            index=index,
            entity=v.entity,
            owner=v.owner,
            project=v.project,
        )
    for entity, owner in verdict.references.items():
        if owner != event.project and not caller.can(Right.READ, owner):
            raise ForbiddenError(
                f"{where}: referencing {entity} of project {owner!r} needs the 'reader' "
                f"right on it; nothing of the batch was written",
                index=index,
                entity=entity,
                owner=owner,
                right=Right.READ.value,
            )


def screen_batch(
    store: BatchWriter, changes: Sequence[EventMutations]
) -> list[OwnershipError | None]:
    """Per change, in order: the error when it writes what another project owns, else None.

    Reads the store once: an unavailable store raises, and nothing is judged.
    """
    ids = lookup_ids(changes)
    owners = store.owners(ids) if ids else {}
    return [
        None if v.violation is None else OwnershipError(str(v.violation))
        for v in screen(changes, owners, StampedRights())
    ]


def screen_entries(
    store: BatchWriter, entries: Sequence[tuple[LogRecord, EventMutations]]
) -> list[OwnershipError | None]:
    """`screen_batch` of a poll batch's (record, change) entries, judged in log order (the
    partitions merged by append time, `log_order`); the errors come back in `entries`' order."""
    return _in_log_order(screen_batch, store, entries)


def owned(store: BatchWriter, changes: Sequence[EventMutations]) -> list[EventMutations]:
    """The changes that pass the screen (replay and verify skip the others, as the projector
    dead-lettered them)."""
    return _passed(changes, screen_batch(store, changes))


# ---- records discipline: read-only environments, required conclusions, complete records ---


def discipline_batch(
    store: FactsLookup, changes: Sequence[EventMutations]
) -> list[ProjectionError | None]:
    """Per change, in order: the discipline rule it breaks (`projection.discipline`: reason
    ``environment_changed``, ``conclusion_required``, ``record_incomplete``, or a convention's:
    ``name_breaks_rule``, ``place_refused``, ``place_taken``), else None. Reads the store once,
    twice when a project requires places (`discipline_facts`)."""
    return judge(changes, discipline_facts(store, changes))


def discipline_facts(store: FactsLookup, changes: Sequence[EventMutations]) -> RecordFacts:
    """What the discipline rules read of the store for `changes`: one read, then, only when a
    project of theirs requires places, the outputs stored at their URIs."""
    facts = store.discipline_facts(*lookups(changes))
    uris, runs = places_wanted(changes, facts)
    if uris:
        facts.writers, facts.experiments = store.output_writers(uris, runs)
    return facts


def discipline_entries(
    store: FactsLookup, entries: Sequence[tuple[LogRecord, EventMutations]]
) -> list[ProjectionError | None]:
    """`discipline_batch` of a poll batch's entries judged in log order (a policy set before an
    event in the log is the one in force for it, whatever their partitions); the errors come
    back in `entries`' order."""
    return _in_log_order(discipline_batch, store, entries)


def disciplined(store: FactsLookup, changes: Sequence[EventMutations]) -> list[EventMutations]:
    """The changes that keep the discipline rules (verify skips the others, as the projector
    dead-lettered them)."""
    return _passed(changes, discipline_batch(store, changes))


# ---- shared by both screens -----------------------------------------------------------------


def _in_log_order(
    judge_batch: Callable[[S, Sequence[EventMutations]], list[R | None]],
    store: S,
    entries: Sequence[tuple[LogRecord, EventMutations]],
) -> list[R | None]:
    """`judge_batch` of a poll batch's (record, change) entries, judged in log order; the
    verdicts come back in `entries`' order."""
    ordered = in_log_order(range(len(entries)), lambda i: entries[i][0])
    verdicts = judge_batch(store, [entries[i][1] for i in ordered])
    by_entry = dict(zip(ordered, verdicts, strict=True))
    return [by_entry[i] for i in range(len(entries))]


def _passed(
    changes: Sequence[EventMutations], verdicts: Sequence[ProjectionError | None]
) -> list[EventMutations]:
    return [change for change, error in zip(changes, verdicts, strict=True) if error is None]
