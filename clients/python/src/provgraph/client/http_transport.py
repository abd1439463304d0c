"""HTTP transport: POST a JSON array of events to the ingest service's ``/v1/events``."""

from __future__ import annotations

import http.client
import urllib.error
import urllib.parse
import urllib.request

from provgraph.client.config import env
from provgraph.client.errors import (
    ConfigError,
    NotAuthorizedError,
    RejectedError,
    TransportError,
)
from provgraph.client.transport import Transport
from provgraph.schemas import Event

EVENTS_PATH = "/v1/events"
RETRYABLE_4XX = frozenset({408, 429})
NOT_AUTHORIZED = frozenset({401, 403})
PAYLOAD_TOO_LARGE = 413
_BODY_EXCERPT = 2000


def encode_batch(batch: list[Event]) -> bytes:
    """A JSON array of the events' canonical JSON, without re-parsing them."""
    return b"[" + b",".join(event.to_json_bytes() for event in batch) + b"]"


class HttpTransport(Transport):
    """Sends batches to ``<ingest_url>/v1/events`` and expects ``202 Accepted``.

    A 4xx other than 408 and 429 means the ingest service refused the batch for good
    (`RejectedError`; `NotAuthorizedError` for 401 and 403, which the emitter retries for
    a while); a 413 on a batch of several events is retried in halves first.
    Connection errors, timeouts, 5xx, 408 and 429 are transient (`TransportError`).
    `token` (else ``PROVGRAPH_TOKEN``) is sent as ``Authorization: Bearer <token>``.
    """

    def __init__(
        self,
        ingest_url: str | None = None,
        *,
        timeout_s: float = 10.0,
        headers: dict[str, str] | None = None,
        token: str | None = None,
    ) -> None:
        ingest_url = ingest_url or env("INGEST_URL")
        if not ingest_url:
            raise ConfigError("no ingest URL: pass ingest_url or set PROVGRAPH_INGEST_URL")
        parsed = urllib.parse.urlsplit(ingest_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ConfigError(f"ingest URL {ingest_url!r} is not an http(s)://host[:port] URL")
        self.url = ingest_url.rstrip("/") + EVENTS_PATH
        self.timeout_s = timeout_s
        self.headers = {"Content-Type": "application/json", **(headers or {})}
        token = token or env("TOKEN")
        if token:
            self.headers["Authorization"] = f"Bearer {token}"

    def describe(self) -> str:
        return f"HTTP {self.url}"

    def send(self, batch: list[Event]) -> None:
        if not batch:
            return
        status, body = self._post(encode_batch(batch))
        if status == 202:
            return
        if status == PAYLOAD_TOO_LARGE and len(batch) > 1:
            self._send_halves(batch)
            return
        if status in NOT_AUTHORIZED:
            message = f"{self.url} refused {len(batch)} events: {status} {body}"
            raise NotAuthorizedError(message, batch, status=status)
        if 400 <= status < 500 and status not in RETRYABLE_4XX:
            raise RejectedError(f"{self.url} refused {len(batch)} events: {status} {body}", batch)
        raise TransportError(f"{self.url} answered {status}: {body}")

    def _send_halves(self, batch: list[Event]) -> None:
        # A transient error propagates: the whole batch is resent, receivers dedupe.
        middle = len(batch) // 2
        rejected: list[Event] = []
        unauthorized: NotAuthorizedError | None = None
        for half in (batch[:middle], batch[middle:]):
            try:
                self.send(half)
            except RejectedError as exc:
                rejected.extend(exc.events)
                if isinstance(exc, NotAuthorizedError):
                    unauthorized = unauthorized or exc
        if unauthorized is not None:  # the emitter retries those: keep saying why
            message = f"{self.url} refused {len(rejected)} events: {unauthorized.status}"
            raise NotAuthorizedError(message, rejected, status=unauthorized.status)
        if rejected:
            raise RejectedError(f"{self.url} refused {len(rejected)} events", rejected)

    def _post(self, data: bytes) -> tuple[int, str]:
        request = urllib.request.Request(self.url, data=data, headers=self.headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return int(response.status), _excerpt(response.read())
        except urllib.error.HTTPError as exc:
            return int(exc.code), _excerpt(exc.read())
        except (OSError, http.client.HTTPException) as exc:  # refused, reset, timeout, ...
            raise TransportError(f"cannot reach {self.url}: {exc}") from exc


def _excerpt(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace").strip()
    return text if len(text) <= _BODY_EXCERPT else text[:_BODY_EXCERPT] + "..."
