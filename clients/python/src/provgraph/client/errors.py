"""Errors of the emitter SDK: one root, `ClientError`, with specific subclasses."""

from __future__ import annotations

from collections.abc import Sequence

from provgraph.schemas import Event


class ClientError(Exception):
    """Root of every error raised by `provgraph.client`."""


class ConfigError(ClientError, ValueError):
    """The emitter is configured inconsistently (no transport, unknown transport name, ...)."""


class ArgumentError(ClientError, ValueError):
    """An argument of an SDK helper breaks the contract; the helper emitted nothing.

    `problems` holds one ``(argument, reason)`` pair per problem: the argument as the helper
    names it (``datasets[1]``, ``from_checkpoint``), the reason as the contract words it.
    """

    def __init__(self, helper: str, problems: Sequence[tuple[str, str]]) -> None:
        self.helper = helper
        self.problems: tuple[tuple[str, str], ...] = tuple(problems)
        text = "; ".join(f"argument {name}: {reason}" for name, reason in self.problems)
        super().__init__(f"{helper}(): {text or 'invalid arguments'}")

    @property
    def arguments(self) -> tuple[str, ...]:
        """The arguments named, in the order of `problems`."""
        return tuple(name for name, _ in self.problems)


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
