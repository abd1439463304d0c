"""provgraph.client: the Python emitter SDK (light: pydantic and kafka-python only).

```python
from provgraph import client

with client.from_env(project="llm-pretrain") as emitter:
    with emitter.run(experiment="exp-017", params={"lr": 3e-4}) as run:
        run.log_metrics(100, loss=2.31)
        run.conclusion = "lr 3e-4 converges"
```
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from provgraph.client.checksum import ChecksumError, sha256_file, sha256_tree
from provgraph.client.config import DEFAULT_TOPIC, ClientSettings
from provgraph.client.emitter import PRODUCER, Emitter, default_spool_dir
from provgraph.client.errors import (
    ArgumentError,
    ClientError,
    ConfigError,
    NotAuthorizedError,
    RejectedError,
    TransportError,
)
from provgraph.client.eventlog import Appended, EventLog, MemoryEventLog
from provgraph.client.http_transport import HttpTransport
from provgraph.client.kafka_log import KafkaEventLog
from provgraph.client.kafka_transport import KafkaTransport
from provgraph.client.run import Run
from provgraph.client.spool import Spool, SpoolLockedError
from provgraph.client.transport import Transport

__all__ = [
    "DEFAULT_TOPIC",
    "PRODUCER",
    "Appended",
    "ArgumentError",
    "ChecksumError",
    "ClientError",
    "ClientSettings",
    "ConfigError",
    "Emitter",
    "EventLog",
    "HttpTransport",
    "KafkaEventLog",
    "KafkaTransport",
    "MemoryEventLog",
    "NotAuthorizedError",
    "RejectedError",
    "Run",
    "Spool",
    "SpoolLockedError",
    "Transport",
    "TransportError",
    "default_spool_dir",
    "from_env",
    "make_transport",
    "sha256_file",
    "sha256_tree",
]


def make_transport(settings: ClientSettings) -> Transport:
    """The transport `settings` choose."""
    settings.check()
    if settings.transport == "kafka":
        return KafkaTransport(settings.kafka_bootstrap, topic=settings.events_topic)
    return HttpTransport(settings.ingest_url, token=settings.token)


def from_env(
    *,
    transport: str | None = None,
    project: str | None = None,
    actor: str | None = None,
    name: str | None = None,
    spool_dir: str | Path | None = None,
    token: str | None = None,
    **emitter_options: Any,
) -> Emitter:
    """An `Emitter` configured from PROVGRAPH_* variables; arguments given here win.

    `token` (else ``PROVGRAPH_TOKEN``) is the ingest service's API token (http transport).
    `emitter_options` go to `Emitter` (durability, batch_size, linger_s, auth_retry_s, ...);
    ``durability`` may also come from ``PROVGRAPH_DURABILITY``.
    """
    settings = ClientSettings.from_env(
        transport=transport,
        project=project,
        actor=actor,
        name=name,
        spool_dir=Path(spool_dir) if spool_dir else None,
        token=token,
        durability=emitter_options.pop("durability", None),
    )
    return Emitter(
        make_transport(settings),
        name=settings.name,
        project=settings.project,
        actor=settings.actor,
        spool_dir=settings.spool_dir,
        durability=settings.durability,
        **emitter_options,
    )
