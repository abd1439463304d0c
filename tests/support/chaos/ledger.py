"""What the chaos run sent: every record, who sent it, whether it was acknowledged, what it is.

Each entry is one record value a producer handed over (a legitimate event, or a hostile one
with the dead-letter reasons and HTTP answers it may get). The audit finds the entries again
in the event log by the SHA-256 of the value bytes, or, for an event that a service
re-serialised, by its `event_hash`.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from provgraph.schemas import Event, event_hash, parse_event
from provgraph.schemas.storage import format_time

LEGIT = "legit"
_NUMBERS = re.compile(r"\d+(?:\.\d+)?")

# Producer kinds, as the summary counts them.
SDK_KAFKA, SDK_HTTP, HTTP, RAW_KAFKA, ADMIN = "sdk-kafka", "sdk-http", "http", "raw-kafka", "admin"


def digest(value: bytes) -> str:
    """The identity of a record value: SHA-256 of its bytes."""
    return hashlib.sha256(value).hexdigest()


@dataclass
class Sent:
    """One record handed to a producer, and what became of the hand-over."""

    producer: str
    kind: str  # LEGIT, or the class of attack
    value: bytes
    event_id: str | None
    project: str | None
    hash: str | None  # event_hash when the value is a valid event
    actor: str | None = None
    occurred_at: str | None = None  # as the projection stores it
    expected_reasons: frozenset[str] = frozenset()  # hostile: acceptable dead-letter reasons
    expected_statuses: frozenset[int] = frozenset()  # hostile over HTTP: acceptable refusals
    acked: bool = False
    statuses: list[int] = field(default_factory=list)  # HTTP answers, in order
    positions: list[tuple[int, int]] = field(default_factory=list)  # acked (partition, offset)
    event: Event | None = None  # the valid event (legitimate entries)

    @property
    def hostile(self) -> bool:
        return self.kind != LEGIT

    @property
    def key(self) -> str:
        return digest(self.value)

    def label(self) -> str:
        return f"{self.kind} via {self.producer} event_id={self.event_id} project={self.project}"


def of_event(producer: str, event: Event, kind: str = LEGIT) -> Sent:
    """The entry of a valid event (its canonical bytes, id, hash, actor and time)."""
    return Sent(
        producer=producer,
        kind=kind,
        value=event.to_json_bytes(),
        event_id=str(event.event_id),
        project=event.project,
        hash=event_hash(event),
        actor=event.actor,
        occurred_at=format_time(event.occurred_at),
        event=event,
    )


def of_raw(producer: str, kind: str, value: bytes, event_id: str | None, project: str) -> Sent:
    """The entry of raw bytes that are not a valid event (or that the harness did not check)."""
    try:
        event = parse_event(value)
    except Exception:  # what the contract (or the JSON parser) refuses is exactly the point
        return Sent(producer, kind, value, event_id, project, None)
    entry = of_event(producer, event, kind)
    entry.value = value
    return entry


class Ledger:
    """Every entry of the run, indexed for the audit; safe to add to from many threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.entries: list[Sent] = []
        self._by_digest: dict[str, Sent] = {}
        self._by_hash: dict[str, Sent] = {}
        self.answers: Counter[str] = Counter()  # HTTP answers by producer and status
        self.timeline: list[str] = []  # every answer, timed (written beside the service logs)
        self._started = time.monotonic()

    def add(self, entry: Sent) -> Sent:
        with self._lock:
            self.entries.append(entry)
            self._by_digest.setdefault(entry.key, entry)
            if entry.hash is not None:
                self._by_hash.setdefault(entry.hash, entry)
        return entry

    def ack(self, entry: Sent, position: tuple[int, int] | None = None) -> None:
        with self._lock:
            entry.acked = True
            if position is not None:
                entry.positions.append(position)

    def answered(self, entries: list[Sent], status: int) -> None:
        """Note one HTTP answer to a request carrying `entries`."""
        with self._lock:
            for entry in entries:
                entry.statuses.append(status)
        if entries:
            self.outcome(entries[0].producer, str(status or "no answer"), len(entries))

    def outcome(self, producer: str, what: str, records: int) -> None:
        """Note how one hand-over of `records` records went (kept with its time)."""
        with self._lock:
            # Error texts vary by address and count: counted by their shape.
            shape = _NUMBERS.sub("#", what)[:70] if ":" in what else what
            self.answers[f"{producer} {shape}"] += 1
            elapsed = time.monotonic() - self._started
            self.timeline.append(f"{elapsed:8.2f}s {producer} {records} records: {what}")

    def find(self, value: bytes) -> Sent | None:
        """The entry a log record carries: by its bytes, else by the hash of the event in it."""
        found = self._by_digest.get(digest(value))
        if found is not None:
            return found
        try:
            return self._by_hash.get(event_hash(parse_event(value)))
        except Exception:  # not an event the contract reads: only the bytes could match
            return None

    def legit(self, project: str | None = None) -> list[Sent]:
        with self._lock:
            return [e for e in self.entries if not e.hostile and project in (None, e.project)]

    def acked_events(self, project: str) -> list[Event]:
        """The legitimate events of `project` acknowledged so far (the targets of attacks)."""
        with self._lock:
            return [
                e.event
                for e in self.entries
                if e.event is not None and e.acked and not e.hostile and e.project == project
            ]

    def counts(self) -> Counter[str]:
        """Entries by producer and kind (`<producer>/<kind>`), acknowledged ones only."""
        with self._lock:
            return Counter(f"{e.producer}/{e.kind}" for e in self.entries if e.acked)

    def refused(self) -> Counter[str]:
        """Hostile entries refused over HTTP, by kind and answer."""
        with self._lock:
            return Counter(
                f"{e.kind} -> {e.statuses[-1]}"
                for e in self.entries
                if e.hostile and not e.acked and e.statuses
            )
