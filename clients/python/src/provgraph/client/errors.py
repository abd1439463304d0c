"""Errors of the emitter SDK: one root, `ClientError`, with specific subclasses."""

from __future__ import annotations

from collections.abc import Sequence

from provgraph.schemas import Event


class ClientError(Exception):
    """Root of every error raised by `provgraph.client`."""


class ConfigError(ClientError, ValueError):
    """The emitter is configured inconsistently (no transport, unknown transport name, ...)."""


class TransportError(ClientError):
    """A transport or the event log could not deliver a batch: it may be partly delivered,
    resend it whole (receivers dedupe by event_id).

    Raised for conditions a later retry can fix: the broker or the ingest service is down,
    a timeout, a 5xx, a 408 or a 429.
    """


class RejectedError(TransportError):
    """The receiver refused `events` for good (breaks the contract, too large, not authorised).

    Every other event of the batch was delivered. Resending the rejected events unchanged
    gives the same answer, so the emitter moves them to the spool's ``rejected`` file.
    """

    def __init__(self, message: str, events: Sequence[Event]) -> None:
        super().__init__(message)
        self.events: list[Event] = list(events)


class NotAuthorizedError(RejectedError):
    """The receiver refused `events` as not authorised (HTTP 401 or 403, in `status`).

    Refused for good as far as the transport can tell; the emitter retries it for a bounded
    time anyway, because a token or a grant just created becomes valid once the projector
    has applied it.
    """

    def __init__(self, message: str, events: Sequence[Event], *, status: int) -> None:
        super().__init__(message, events)
        self.status = status
