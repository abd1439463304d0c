"""The transport port: how a batch of events leaves the process."""

from __future__ import annotations

from abc import ABC, abstractmethod

from provgraph.schemas import Event


class Transport(ABC):
    """Delivers batches of events, in order, to the event log (directly or through ingest).

    `send` returns only when every event of the batch is durably accepted. It raises
    `TransportError` when the receiver cannot be reached or answers "try later" (the emitter
    spools the batch and resends it whole, so receivers dedupe by event_id), and
    `RejectedError` for events refused for good. Only the emitter's sender thread calls it.
    """

    @abstractmethod
    def send(self, batch: list[Event]) -> None:
        """Deliver `batch`; raise `TransportError` (or `RejectedError`) when it cannot."""

    def close(self) -> None:  # noqa: B027  (closing is optional for a transport)
        """Release connections; the transport is not used afterwards."""

    def describe(self) -> str:
        """Where this transport sends, for log messages."""
        return type(self).__name__
