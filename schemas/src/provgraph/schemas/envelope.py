"""The envelope every event shares, and the base classes of payloads.

An event is ``Event`` subclass per (event_type, schema_version): the subclass pins
``event_type`` and ``schema_version`` with literals and names its payload model. The envelope
checks that ``subject`` is the id the payload implies, so the Kafka key (the subject) always
names the entity the event is about.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Annotated, Any, Self
from uuid import UUID, uuid4

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import PydanticCustomError

from provgraph.schemas.ids import EntityId, ProjectSlug, parse_id
from provgraph.schemas.limits import check_time
from provgraph.schemas.patterns import RFC3339_RE, SPACE, TIMESTAMP_RE, matches, whole

URI_RE = whole(rf"[A-Za-z][A-Za-z0-9+.-]*:[^{SPACE}]+")
EVENT_TYPE_RE = whole(r"[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+")


class ContractModel(BaseModel):
    """Base of every contract model: immutable, unknown fields rejected, no NaN or infinity.

    ``Field(pattern=...)`` runs on Python's ``re`` (searched, as JSON Schema validators do), so
    a pattern means here what it means in the generated JSON Schema (see `patterns`)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", allow_inf_nan=False, regex_engine="python-re"
    )


def _bad_time(value: object, why: str) -> PydanticCustomError:
    return PydanticCustomError(
        "rfc3339",
        "timestamp '{value}' {why}: use RFC 3339 with a timezone, e.g. 2024-05-01T12:00:00Z",
        {"value": value, "why": why},
    )


def _utc_datetime(value: object) -> datetime:
    text = value if isinstance(value, str) else None
    if isinstance(value, str):
        if not matches(RFC3339_RE, value):
            raise _bad_time(value, "is not RFC 3339")
        upper_z = value[:-1] + "Z" if value.endswith("z") else value  # RFC 3339 allows 'z'
        try:
            value = datetime.fromisoformat(upper_z)
        except ValueError:
            raise _bad_time(value, "is not a valid date and time") from None
    if not isinstance(value, datetime):
        raise _bad_time(value, "is not a string")
    if value.tzinfo is None or value.utcoffset() is None:
        raise _bad_time(value, "has no timezone")
    return check_time(value, text)


def _format_utc(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


UtcDatetime = Annotated[
    datetime,
    PlainValidator(_utc_datetime),
    PlainSerializer(_format_utc, return_type=str, when_used="json"),
    WithJsonSchema({"type": "string", "format": "date-time", "pattern": TIMESTAMP_RE}),
]
"""A timezone-aware timestamp, normalised to UTC, within 1970..9999 (in UTC); strings must be
RFC 3339."""


MAX_URI_CHARS = 4096
"""Longest URI (a producer, an endpoint, a reference)."""


def _uri(value: str) -> str:
    if not matches(URI_RE, value):
        raise PydanticCustomError(
            "uri", "'{value}' is not a URI with a scheme (e.g. https://...)", {"value": value}
        )
    return value


Uri = Annotated[
    str,
    Field(max_length=MAX_URI_CHARS),
    AfterValidator(_uri),
    WithJsonSchema({"type": "string", "pattern": URI_RE, "maxLength": MAX_URI_CHARS}),
]
"""Any absolute URI (``scheme:rest``)."""

UUID_PATTERN = whole(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _uuid_text(value: object) -> object:
    # As JSON Schema says (`format: uuid` and the pattern): no `urn:uuid:`, braces or bare hex.
    if isinstance(value, str) and not matches(UUID_PATTERN, value):
        raise PydanticCustomError(
            "uuid_text",
            "'{value}' is not a UUID written as 8-4-4-4-12 hex digits with hyphens "
            "(e.g. 0b9d6f3e-3c41-4c1a-9c57-2f0d7c1e5a10)",
            {"value": value},
        )
    return value


Uuid = Annotated[
    UUID,
    BeforeValidator(_uuid_text),
    WithJsonSchema({"type": "string", "format": "uuid", "pattern": UUID_PATTERN}),
]
"""A UUID, written with hyphens on the wire."""

Text = Annotated[str, Field(min_length=1, max_length=4096)]
"""A short non-empty human-readable text."""


class Payload(ContractModel):
    """Base of every payload. Subclasses define `subject`: how the event's subject is derived."""

    def subject(self, project: str) -> str:
        """The typed id of the entity this event is about (the Kafka key)."""
        raise NotImplementedError


def _mismatch(subject: str, expected: str) -> PydanticCustomError:
    return PydanticCustomError(
        "subject_mismatch",
        "subject '{subject}' does not match the id the payload implies: '{expected}'",
        {"subject": subject, "expected": expected},
    )


class Event(ContractModel):
    """The envelope shared by every event; concrete events subclass it per type and version."""

    event_id: Uuid
    event_type: Annotated[str, Field(pattern=EVENT_TYPE_RE)]
    schema_version: Annotated[int, Field(ge=1)]
    occurred_at: UtcDatetime
    project: ProjectSlug
    producer: Uri
    actor: Annotated[str, Field(min_length=1, max_length=256)]
    subject: EntityId
    payload: Payload
    correlation_id: Uuid | None = None
    causation_id: Uuid | None = None

    @model_validator(mode="after")
    def _subject_matches_payload(self) -> Self:
        expected = self.payload.subject(self.project)
        if self.subject != expected:
            raise _mismatch(self.subject, expected)
        owner = parse_id(expected).project
        if owner is not None and owner != self.project:
            raise PydanticCustomError(
                "subject_mismatch",
                "subject '{subject}' belongs to project '{owner}', not the event's '{project}'",
                {"subject": expected, "owner": owner, "project": self.project},
            )
        return self

    @classmethod
    def create(
        cls,
        *,
        project: str,
        producer: str,
        actor: str,
        payload: Payload,
        occurred_at: datetime | None = None,
        event_id: UUID | None = None,
        correlation_id: UUID | None = None,
        causation_id: UUID | None = None,
    ) -> Self:
        """Build an event with a fresh event_id, the current time and the derived subject."""
        fields: dict[str, Any] = {
            "event_id": event_id or uuid4(),
            "occurred_at": occurred_at or datetime.now(UTC),
            "project": project,
            "producer": producer,
            "actor": actor,
            "subject": payload.subject(project),
            "payload": payload,
            "correlation_id": correlation_id,
            "causation_id": causation_id,
        }
        return cls.model_validate(fields)

    def to_json_bytes(self) -> bytes:
        """The canonical JSON sent to Kafka: sorted keys, no spaces, UTF-8, nulls omitted."""
        return to_json_bytes(self)

    def kafka_key(self) -> bytes:
        """The default Kafka key: the subject, so one entity's events stay in order."""
        return self.subject.encode("utf-8")


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""The encoder `json.dumps` builds anew on every call with these options. It keeps no state
between calls (`json` shares one so for its default options), so one serves every event's
hash and gives the same text."""


def to_json_bytes(event: BaseModel) -> bytes:
    """Canonical JSON of any contract model; lossless: parsing it gives an equal model."""
    data = event.model_dump(mode="json", exclude_none=True)
    return _CANONICAL.encode(data).encode()


def kafka_key(event: Event) -> bytes:
    """The Kafka key of an event (its subject, UTF-8)."""
    return event.kafka_key()


def event_hash(event: Event) -> str:
    """``sha256:<hex>`` of the event's canonical JSON: what an `event_id` stands for.

    Two events under one `event_id` are the same event only when their hashes are equal (the
    canonical form normalises what JSON lets vary: key order, spacing, timestamp offsets).
    """
    return "sha256:" + hashlib.sha256(to_json_bytes(event)).hexdigest()
