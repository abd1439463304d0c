"""Settings of the local launcher: one class, every value overridable by a PROVGRAPH_* env var."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field

from provgraph.core.settings import ProvgraphSettings


def _default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "provgraph"


class InfraSettings(ProvgraphSettings):
    """Where Kafka and Neo4j run, which versions, and how much memory they get.

    The defaults suit a 2-core / 24 GiB machine; ports are all on loopback.
    """

    home: Path = Field(default=Path(".provgraph"), description="state dir: data, logs, pids, env")
    cache_dir: Path = Field(default_factory=_default_cache_dir, description="Maven-resolved jars")
    host: str = "127.0.0.1"

    kafka_version: str = "4.1.1"
    kafka_port: int = 9092
    kafka_controller_port: int = 9093
    kafka_heap: str = "1g"
    # `infra up --brokers N`: N KRaft broker-controllers on consecutive ports from kafka_port
    # (see kafka_cluster.py). Unset: as many as the data was formatted for, else one.
    kafka_brokers: int | None = Field(default=None, ge=1, le=9)
    # Each broker's heap when there are several (three JVMs share the machine).
    kafka_cluster_heap: str = "512m"

    neo4j_version: str = "5.26.30"
    # Published on its own (not with the server), and never for 5.26: the newest release.
    neo4j_browser_version: str = "5.24.0"
    neo4j_bolt_port: int = 7687
    neo4j_http_port: int = 7474
    neo4j_user: str = "neo4j"
    neo4j_heap: str = "2g"
    neo4j_pagecache: str = "2g"

    ingest_port: int = 8080
    # `services up --projectors N`: N projector processes in one consumer group.
    projectors: int = Field(default=1, ge=1, le=32)
    query_port: int = 8081
    # The built web explorer (`make ui`), given to the query service when the folder exists.
    ui_dir: Path = Field(default=Path("web/dist"), description="built explorer, served at /ui")

    java: str = Field(default="", description="java binary; default $JAVA_HOME/bin/java or PATH")
    mvn: str = "mvn"
    startup_timeout_s: float = 180.0

    @property
    def state_dir(self) -> Path:
        return self.home.resolve() / "state"

    @property
    def env_file(self) -> Path:
        return self.home.resolve() / "env"

    @property
    def admin_token_file(self) -> Path:
        """The bootstrap global admin token (mode 0600), written once by `infra up`."""
        return self.home.resolve() / "admin-token"

    @property
    def kafka_bootstrap(self) -> str:
        """The first broker; a cluster's clients are given every broker (the env file)."""
        return f"{self.host}:{self.kafka_port}"

    @property
    def neo4j_uri(self) -> str:
        return f"neo4j://{self.host}:{self.neo4j_bolt_port}"

    @property
    def ingest_url(self) -> str:
        return f"http://{self.host}:{self.ingest_port}"

    @property
    def query_url(self) -> str:
        return f"http://{self.host}:{self.query_port}"
