"""Client settings: constructor arguments first, then PROVGRAPH_* environment variables.

- ``PROVGRAPH_TRANSPORT``: ``kafka`` or ``http`` (default: kafka when a bootstrap is set)
- ``PROVGRAPH_KAFKA_BOOTSTRAP``: Kafka bootstrap servers
- ``PROVGRAPH_EVENTS_TOPIC``: the event log topic (default ``provgraph.events``)
- ``PROVGRAPH_INGEST_URL``: base URL of the ingest service (``http://host:8080``)
- ``PROVGRAPH_TOKEN``: the API token the http transport sends as ``Authorization: Bearer``
- ``PROVGRAPH_PROJECT``: project slug of the events
- ``PROVGRAPH_ACTOR``: who causes the events (default ``user:<login>``)
- ``PROVGRAPH_EMITTER_NAME``: names the spool directory (default ``default``)
- ``PROVGRAPH_SPOOL_DIR``: the spool directory (default ``~/.cache/provgraph/spool/<name>``)
- ``PROVGRAPH_DURABILITY``: ``spool`` (default: `emit` returns once the event is on disk) or
  ``memory`` (`emit` hands it over in memory; a crash loses what was not written yet)
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from provgraph.client.errors import ConfigError

DEFAULT_TOPIC = "provgraph.events"
"""The event log topic (the same default as the ingest service's ``events_topic``)."""

TRANSPORTS = ("kafka", "http")
DURABILITY = ("spool", "memory")


def env(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The value of ``PROVGRAPH_<name>``, or None when unset or empty."""
    value = (os.environ if environ is None else environ).get(f"PROVGRAPH_{name}", "").strip()
    return value or None


def default_actor() -> str:
    """``user:<login name>`` (``user:unknown`` when the login cannot be found)."""
    try:
        return f"user:{getpass.getuser()}"
    except (KeyError, OSError):
        return "user:unknown"


@dataclass(frozen=True)
class ClientSettings:
    """Where and as whom an emitter sends; see the module docstring for the variables."""

    transport: str = "kafka"
    kafka_bootstrap: str | None = None
    events_topic: str = DEFAULT_TOPIC
    ingest_url: str | None = None
    token: str | None = field(default=None, repr=False)
    project: str | None = None
    actor: str | None = None
    name: str = "default"
    spool_dir: Path | None = None
    durability: str = "spool"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> ClientSettings:
        """Settings from PROVGRAPH_* variables; keyword `overrides` win over them."""
        bootstrap = env("KAFKA_BOOTSTRAP", environ)
        spool = env("SPOOL_DIR", environ)
        settings = cls(
            transport=env("TRANSPORT", environ) or ("kafka" if bootstrap else "http"),
            kafka_bootstrap=bootstrap,
            events_topic=env("EVENTS_TOPIC", environ) or DEFAULT_TOPIC,
            ingest_url=env("INGEST_URL", environ),
            token=env("TOKEN", environ),
            project=env("PROJECT", environ),
            actor=env("ACTOR", environ) or default_actor(),
            name=env("EMITTER_NAME", environ) or "default",
            spool_dir=Path(spool).expanduser() if spool else None,
            durability=env("DURABILITY", environ) or "spool",
        )
        settings = replace(settings, **{k: v for k, v in overrides.items() if v is not None})
        settings.check()
        return settings

    def check(self) -> None:
        """Fail early with a clear message when the chosen transport has no endpoint."""
        if self.transport not in TRANSPORTS:
            raise ConfigError(f"transport {self.transport!r} is not one of {TRANSPORTS}")
        if self.transport == "kafka" and not self.kafka_bootstrap:
            raise ConfigError("the kafka transport needs PROVGRAPH_KAFKA_BOOTSTRAP")
        if self.transport == "http" and not self.ingest_url:
            raise ConfigError("the http transport needs PROVGRAPH_INGEST_URL")
        if self.durability not in DURABILITY:
            raise ConfigError(f"durability {self.durability!r} is not one of {DURABILITY}")
