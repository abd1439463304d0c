"""The hostile traffic of the chaos run: what an ordinary writer (or a crash) can send.

Each attack is one record value, with the dead-letter reasons the projector may give it and
the HTTP answers the ingest service may give it. Takeovers and event-id reuse aim at what the
victim project already has *applied* (so the victim's own events are always first in the
log); the values the store cannot hold are built as raw JSON, past the contract, as an
attacker that does not use the SDK would.
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from provgraph.schemas import (
    CheckpointDeleted,
    CheckpointSaved,
    Event,
    RunCompleted,
    RunMetricsLogged,
    RunStarted,
    checkpoint_id,
)
from provgraph.schemas.events.checkpoint import CheckpointDeletedPayload, CheckpointSavedPayload
from provgraph.schemas.events.experiment import RunStartedPayload
from provgraph.schemas.events.run import MetricPoint, RunCompletedPayload, RunMetricsLoggedPayload

from .workload import PRODUCER

ATTACKER = "user:mallory"
DEEP_LEVELS = 5000
_DEEP = "__deep__"
_TOO_DEEP_STATUSES = frozenset({400, 413, 422})

# The kinds of attack and the dead-letter reasons each may get (any of them keeps the rule:
# isolated, dead-lettered with a reason, no effect).
REASONS: dict[str, frozenset[str]] = {
    "takeover-run": frozenset({"ownership"}),
    "takeover-checkpoint": frozenset({"ownership"}),
    "event-id-reuse": frozenset({"conflict"}),
    "int-beyond-64-bits": frozenset({"contract", "store_rejected"}),
    "deep-json": frozenset({"contract", "store_rejected"}),
    "calendar-edge-time": frozenset({"contract", "store_rejected", "occurred_at_in_future"}),
    "far-future": frozenset({"occurred_at_in_future"}),
    "unknown-type": frozenset({"unknown_type"}),
    "newer-version": frozenset({"unsupported_version"}),
}
STATUSES: dict[str, frozenset[int]] = {
    "takeover-run": frozenset({403}),
    "takeover-checkpoint": frozenset({403}),
    "event-id-reuse": frozenset({409}),
    "deep-json": _TOO_DEEP_STATUSES,
}
KINDS = tuple(REASONS)

Applied = Callable[[list[str]], set[str]]
"""Which of these event ids the graph has applied (a Neo4j query)."""


@dataclass(frozen=True)
class Attack:
    """One hostile record: its bytes, who it claims to be, how it may be refused."""

    kind: str
    value: bytes
    key: bytes
    event_id: str
    project: str  # the project the event names
    token_project: str  # whose writer token sends it over HTTP

    @property
    def reasons(self) -> frozenset[str]:
        return REASONS[self.kind]

    @property
    def statuses(self) -> frozenset[int]:
        return STATUSES.get(self.kind, frozenset({422}))


def _dump(event: Event) -> dict[str, Any]:
    data: dict[str, Any] = event.model_dump(mode="json", exclude_none=True)
    return data


def _text(data: dict[str, Any]) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


class Arsenal:
    """Builds attacks from a seeded generator, aimed at what the victims have applied."""

    def __init__(self, rng: random.Random, legit: Callable[[str], list[Event]]) -> None:
        self.rng = rng
        self.legit = legit  # the legitimate events sent for a project so far

    def build(self, kind: str, attacker: str, victim: str, applied: Applied) -> Attack | None:
        """An attack of `kind` by `attacker` (on `victim`), or None when nothing is a target yet."""
        builders: dict[str, Callable[[], Attack | None]] = {
            "takeover-run": lambda: self._takeover_run(attacker, victim, applied),
            "takeover-checkpoint": lambda: self._takeover_checkpoint(attacker, victim, applied),
            "event-id-reuse": lambda: self._reuse(victim, applied),
            "int-beyond-64-bits": lambda: self._big_int(attacker),
            "deep-json": lambda: self._deep(attacker),
            "calendar-edge-time": lambda: self._edge_time(attacker),
            "far-future": lambda: self._future(attacker),
            "unknown-type": lambda: self._unknown_type(attacker),
            "newer-version": lambda: self._newer_version(attacker),
        }
        return builders[kind]()

    # --- helpers --------------------------------------------------------------------------

    def _new_id(self) -> uuid.UUID:
        return uuid.UUID(int=self.rng.getrandbits(128), version=4)

    def _event(self, cls: type[Event], project: str, payload: Any, **fields: Any) -> Event:
        return cls.create(
            project=project,
            producer=PRODUCER,
            actor=ATTACKER,
            payload=payload,
            event_id=self._new_id(),
            **fields,
        )

    def _target(self, victim: str, cls: type[Event], applied: Applied) -> Event | None:
        # The older events of the victim: the ones most likely applied already.
        sent = [e for e in self.legit(victim) if isinstance(e, cls)]
        candidates = sent[: max(1, len(sent) * 2 // 3)]
        sample = self.rng.sample(candidates, k=min(40, len(candidates)))
        done = applied([str(e.event_id) for e in sample])
        hits = [e for e in sample if str(e.event_id) in done]
        return self.rng.choice(hits) if hits else None

    @staticmethod
    def _of(kind: str, event: Event, token_project: str) -> Attack:
        return Attack(
            kind,
            event.to_json_bytes(),
            event.kafka_key(),
            str(event.event_id),
            event.project,
            token_project,
        )

    def _fresh_run(self, attacker: str, **params: Any) -> Event:
        key = f"{attacker}-x{self.rng.getrandbits(40):010x}"
        return self._event(RunStarted, attacker, RunStartedPayload(run_id=key, params=params))

    @staticmethod
    def _raw(kind: str, data: dict[str, Any], value: bytes, token_project: str) -> Attack:
        key = str(data.get("subject", "run:x")).encode()
        return Attack(kind, value, key, str(data["event_id"]), str(data["project"]), token_project)

    # --- the attacks ----------------------------------------------------------------------

    def _takeover_run(self, attacker: str, victim: str, applied: Applied) -> Attack | None:
        target = self._target(victim, RunStarted, applied)
        if target is None:
            return None
        key = target.payload.run_id  # type: ignore[attr-defined]
        if self.rng.random() < 0.5:
            done = RunCompletedPayload(run_id=key, conclusion="taken over")
            event = self._event(RunCompleted, attacker, done)
        else:
            started = RunStartedPayload(run_id=key, params={"stolen": True})
            event = self._event(RunStarted, attacker, started)
        return self._of("takeover-run", event, attacker)

    def _takeover_checkpoint(self, attacker: str, victim: str, applied: Applied) -> Attack | None:
        target = self._target(victim, CheckpointSaved, applied)
        if target is None:
            return None
        run, step = target.payload.run_id, target.payload.step  # type: ignore[attr-defined]
        if self.rng.random() < 0.5:
            saved = CheckpointSavedPayload(
                run_id=run, step=step, uri="s3://mallory/evil", checksum="sha256:" + "0" * 64
            )
            event = self._event(CheckpointSaved, attacker, saved)
        else:
            gone = CheckpointDeletedPayload(checkpoint=checkpoint_id(run, step), reason="mine")
            event = self._event(CheckpointDeleted, attacker, gone)
        return self._of("takeover-checkpoint", event, attacker)

    def _reuse(self, victim: str, applied: Applied) -> Attack | None:
        target = self._target(victim, Event, applied)
        if target is None:
            return None
        data = _dump(target)
        data["actor"] = ATTACKER
        later = target.occurred_at + timedelta(seconds=1)
        data["occurred_at"] = later.isoformat().replace("+00:00", "Z")
        event = type(target).model_validate(data)
        return self._of("event-id-reuse", event, victim)

    def _big_int(self, attacker: str) -> Attack:
        beyond = 2**64 + self.rng.randrange(1, 10**6)
        if self.rng.random() < 0.5:
            data = _dump(self._fresh_run(attacker, placeholder=0))
            data["payload"]["params"] = {"seed": beyond, "small": 1}
        else:
            key = f"{attacker}-x{self.rng.getrandbits(40):010x}"
            point = MetricPoint(name="loss", step=1, value=0.5)
            payload = RunMetricsLoggedPayload(run_id=key, points=(point,))
            data = _dump(self._event(RunMetricsLogged, attacker, payload))
            data["payload"]["points"][0]["step"] = 2**63 + self.rng.randrange(1, 10**6)
        return self._raw("int-beyond-64-bits", data, _text(data), attacker)

    def _deep(self, attacker: str) -> Attack:
        data = _dump(self._fresh_run(attacker, deep=_DEEP))
        nested = "[" * DEEP_LEVELS + "]" * DEEP_LEVELS
        value = _text(data).replace(json.dumps(_DEEP).encode(), nested.encode())
        return self._raw("deep-json", data, value, attacker)

    def _edge_time(self, attacker: str) -> Attack:
        data = _dump(self._fresh_run(attacker))
        edges = ("9999-12-31T23:59:59.999999-12:00", "0001-01-01T00:00:00+14:00")
        data["occurred_at"] = self.rng.choice(edges)
        return self._raw("calendar-edge-time", data, _text(data), attacker)

    def _future(self, attacker: str) -> Attack:
        ahead = timedelta(seconds=self.rng.randrange(3600, 30 * 86400))
        event = self._fresh_run(attacker)
        data = _dump(event)
        data["occurred_at"] = (datetime.now(UTC) + ahead).isoformat().replace("+00:00", "Z")
        return self._raw("far-future", data, _text(data), attacker)

    def _unknown_type(self, attacker: str) -> Attack:
        data = _dump(self._fresh_run(attacker))
        data["event_type"] = "chaos.mystery_happened"
        data["payload"] = {"note": "an event type no projector knows"}
        return self._raw("unknown-type", data, _text(data), attacker)

    def _newer_version(self, attacker: str) -> Attack:
        data = _dump(self._fresh_run(attacker))
        data["schema_version"] = 99
        return self._raw("newer-version", data, _text(data), attacker)
