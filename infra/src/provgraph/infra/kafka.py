"""Apache Kafka 4 in KRaft mode: combined broker + controller nodes on loopback (one, or a
quorum of several: `kafka_cluster`)."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

from provgraph.infra import maven
from provgraph.infra.base import LocalServer, template
from provgraph.infra.errors import StartupError
from provgraph.infra.kafka_cluster import KafkaCluster, cluster_id, recorded_brokers
from provgraph.infra.settings import InfraSettings

_fetch_lock = threading.Lock()


def kafka_cluster(settings: InfraSettings) -> KafkaCluster:
    """The local Kafka `settings` describe: `kafka_brokers` nodes, or as many as the data was
    formatted for, else one."""
    recorded = recorded_brokers(settings.state_dir / KafkaServer.name)
    brokers = settings.kafka_brokers or recorded or 1
    return KafkaCluster.plan(
        settings.host, brokers, settings.kafka_port, settings.kafka_controller_port
    )


class KafkaServer(LocalServer):
    """Kafka from org.apache.kafka:kafka_2.13, started with its own main class: node
    `node_id` of the cluster `settings` describe (node 1 alone by default)."""

    name = "kafka"

    def __init__(
        self, settings: InfraSettings, node_id: int = 1, cluster: KafkaCluster | None = None
    ) -> None:
        self.cluster = cluster or kafka_cluster(settings)
        self.node = self.cluster.node(node_id)
        self.name = self.node.name  # its own dir, pid file and logs
        super().__init__(settings)

    def marker(self) -> str:
        return f"provgraph-kafka={self.dir}"

    def ports(self) -> dict[str, int]:
        return {"broker": self.node.port, "controller": self.node.controller_port}

    @property
    def bootstrap(self) -> str:
        return f"{self.settings.host}:{self.node.port}"

    def prepare(self) -> list[str]:
        s = self.settings
        with _fetch_lock:  # a cluster's nodes are prepared side by side: one fetch
            lib = maven.resolve("kafka", s.kafka_version, s.cache_dir, s.mvn)
        java = maven.find_java(s.java)
        config = self._write_config()
        jvm = self._jvm_args(java, lib)
        self._format_storage(jvm, config)
        return [*jvm, "kafka.Kafka", str(config)]

    def is_ready(self) -> bool:
        from kafka.errors import KafkaConfigurationError, KafkaError

        from provgraph.core import kafka_clients  # only a readiness check needs a client

        try:
            admin = kafka_clients.admin_client(self.bootstrap, timeout_s=3.0)
        except KafkaConfigurationError:
            raise
        except (KafkaError, OSError):
            return False
        try:
            admin.list_topics()
            # Registered with the quorum (not merely listening): it is among the live brokers.
            brokers = admin.describe_cluster().get("brokers") or []
            return any(
                b.get("broker_id") == self.node.node_id and not b.get("is_fenced") for b in brokers
            )
        except (KafkaError, OSError):
            return False
        finally:
            admin.close()

    def log_paths(self) -> list[Path]:
        return [self.process.log_file, self.dir / "logs" / "server.log"]

    def _write_config(self) -> Path:
        conf_dir = self.dir / "conf"
        conf_dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "logs").mkdir(parents=True, exist_ok=True)
        values = {
            **node_config(self.cluster, self.node.node_id),
            "data_dir": self.dir / "data",
            "log_file": self.dir / "logs" / "server.log",
        }
        for template_name, target in (
            ("kafka-server.properties", "server.properties"),
            ("kafka-log4j2.properties", "log4j2.properties"),
        ):
            (conf_dir / target).write_text(template(template_name).format(**values))
        return conf_dir / "server.properties"

    def _jvm_args(self, java: str, lib: Path) -> list[str]:
        s = self.settings
        heap = s.kafka_heap if self.cluster.brokers == 1 else s.kafka_cluster_heap
        return [
            java,
            f"-Xms{heap}",
            f"-Xmx{heap}",
            "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20",
            "-Djava.awt.headless=true",
            f"-Dlog4j2.configurationFile={self.dir / 'conf' / 'log4j2.properties'}",
            f"-Dkafka.logs.dir={self.dir / 'logs'}",
            f"-D{self.marker()}",
            "-cp",
            f"{lib}/*",
        ]

    def _format_storage(self, jvm: list[str], config: Path) -> None:
        # KRaft storage is formatted once; every node of a cluster with the same cluster id
        # (recorded beside node 1's data). The quorum is static (controller.quorum.voters).
        if (self.dir / "data" / "meta.properties").exists():
            return
        first_node_dir = self.settings.state_dir / KafkaServer.name
        found = cluster_id(first_node_dir, self.cluster.brokers)
        argv = [*jvm, "kafka.tools.StorageTool", "format", f"--cluster-id={found}"]
        argv += ["--config", str(config)]
        proc = subprocess.run(argv, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise StartupError(
                f"formatting Kafka storage in {self.dir / 'data'} failed:\n"
                + (proc.stdout + proc.stderr)[-2000:]
            )


def node_config(cluster: KafkaCluster, node_id: int) -> dict[str, object]:
    """The values of kafka-server.properties for node `node_id` of `cluster`."""
    node = cluster.node(node_id)
    return {
        "host": cluster.host,
        "node_id": node.node_id,
        "brokers": cluster.brokers,
        "port": node.port,
        "controller_port": node.controller_port,
        "quorum_voters": cluster.quorum_voters,
        "replication": cluster.replication,
        "min_insync": cluster.min_insync,
    }
