"""The registry: (event_type, schema_version) -> model, and upcasters to the current version.

Old events stay readable forever: every published version keeps its model, and an upcaster
per step (v -> v+1) rewrites an old event into the next version's shape when it is read.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from typing import Any

from provgraph.schemas.envelope import Event
from provgraph.schemas.errors import (
    ErrorCode,
    EventValidationError,
    FieldError,
    FutureSchemaVersionError,
    RegistryError,
    UnknownEventTypeError,
)

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
"""Rewrites an event (as a JSON-ready dict) of version v into version v + 1."""


def type_and_version(model: type[Event]) -> tuple[str, int]:
    """The (event_type, schema_version) a model pins with its literal defaults."""
    fields = model.model_fields
    return str(fields["event_type"].default), int(fields["schema_version"].default)


class Registry:
    """Maps (event_type, schema_version) to models and chains upcasters to the current one."""

    def __init__(self) -> None:
        self._models: dict[tuple[str, int], type[Event]] = {}
        self._versions: dict[str, list[int]] = {}  # event_type -> versions, ascending
        self._upcasters: dict[tuple[str, int], Upcaster] = {}

    def register(self, model: type[Event]) -> None:
        """Add a model; each (event_type, schema_version) may be registered once."""
        key = type_and_version(model)
        if key in self._models:
            raise RegistryError(f"{key[0]} v{key[1]} is already registered")
        self._models[key] = model
        self._versions[key[0]] = sorted([*self._versions.get(key[0], []), key[1]])

    def register_upcaster(self, event_type: str, from_version: int, upcaster: Upcaster) -> None:
        """Add the step that rewrites `event_type` from `from_version` to the next version."""
        self._upcasters[(event_type, from_version)] = upcaster

    def event_types(self) -> list[str]:
        """Every known event_type, sorted."""
        return sorted({t for t, _ in self._models})

    def versions(self, event_type: str) -> list[int]:
        """The registered schema versions of `event_type`, ascending."""
        return list(self._versions.get(event_type, ()))

    def current_version(self, event_type: str) -> int:
        """The newest schema version of `event_type` (what writers emit)."""
        known = self._versions.get(event_type)
        return known[-1] if known else 0

    def models(self) -> list[type[Event]]:
        """Every registered model, sorted by (event_type, schema_version)."""
        return [self._models[k] for k in sorted(self._models)]

    def current_models(self) -> list[type[Event]]:
        """The current model of every event type."""
        return [self._models[(t, self.current_version(t))] for t in self.event_types()]

    def resolve(self, event_type: str, schema_version: int) -> type[Event]:
        """The model for this type and version, or a clear error saying why there is none."""
        known = self._versions.get(event_type, [])
        if not known:
            raise UnknownEventTypeError([_unknown_type(event_type, self.event_types())])
        if schema_version > known[-1]:
            raise FutureSchemaVersionError([_future(event_type, schema_version, known[-1])])
        model = self._models.get((event_type, schema_version))
        if model is None:
            reason = f"{event_type} has no schema_version {schema_version} (known: {known})"
            raise EventValidationError([_error("schema_version", reason)])
        return model

    def upcast(self, data: dict[str, Any]) -> dict[str, Any]:
        """Rewrite a JSON-ready event dict step by step up to the current version."""
        event_type, version = str(data["event_type"]), int(data["schema_version"])
        while version < self.current_version(event_type):
            data = self._upcasters[(event_type, version)](data)
            version = int(data["schema_version"])
        return data

    def check(self) -> None:
        """Fail when some old version has no upcaster to the next one."""
        for event_type in self.event_types():
            for version in self.versions(event_type)[:-1]:
                if (event_type, version) not in self._upcasters:
                    missing = f"{event_type} v{version} has no upcaster to v{version + 1}"
                    raise RegistryError(missing)


def _error(path: str, reason: str, code: ErrorCode = ErrorCode.INVALID_VALUE) -> FieldError:
    return FieldError(path, reason, code)


def _unknown_type(event_type: str, known: list[str]) -> FieldError:
    close = difflib.get_close_matches(event_type, known, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(known)}"
    reason = f"unknown event_type {event_type!r}{hint}"
    return _error("event_type", reason, ErrorCode.UNKNOWN_EVENT_TYPE)


def _future(event_type: str, version: int, newest: int) -> FieldError:
    reason = (
        f"event_type {event_type} schema_version {version} is newer than this reader "
        f"(max {newest}): upgrade provgraph"
    )
    return _error("schema_version", reason, ErrorCode.FUTURE_SCHEMA_VERSION)


def build_registry(
    models: Iterable[type[Event]], upcasters: dict[tuple[str, int], Upcaster]
) -> Registry:
    """A checked registry holding `models` and `upcasters`."""
    registry = Registry()
    for model in models:
        registry.register(model)
    for (event_type, version), upcaster in upcasters.items():
        registry.register_upcaster(event_type, version, upcaster)
    registry.check()
    return registry


def _default_registry() -> Registry:
    from provgraph.schemas.events import (
        EVENT_MODELS,
        upcast_checkpoint_saved_v1,
        upcast_checkpoint_saved_v2,
        upcast_policy_set_v1,
        upcast_policy_set_v2,
        upcast_run_started_v1,
        upcast_to_v2,
    )

    upcasters: dict[tuple[str, int], Upcaster] = {
        ("checkpoint.saved", 1): upcast_checkpoint_saved_v1,
        ("checkpoint.saved", 2): upcast_checkpoint_saved_v2,
        ("project.policy.set", 1): upcast_policy_set_v1,
        ("project.policy.set", 2): upcast_policy_set_v2,
        ("run.completed", 1): upcast_to_v2,
        ("run.started", 1): upcast_run_started_v1,
        ("run.failed", 1): upcast_to_v2,
    }
    return build_registry(EVENT_MODELS, upcasters)


REGISTRY = _default_registry()
"""The registry of every event type this package knows."""
