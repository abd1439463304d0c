"""Apache Kafka 4 in KRaft mode: one combined broker + controller on loopback."""

from __future__ import annotations

import base64
import subprocess
import uuid
from pathlib import Path

from provgraph.infra import maven
from provgraph.infra.base import LocalServer, template
from provgraph.infra.errors import StartupError


class KafkaServer(LocalServer):
    """Kafka from org.apache.kafka:kafka_2.13, started with its own main class."""

    name = "kafka"

    def marker(self) -> str:
        return f"provgraph-kafka={self.dir}"

    def ports(self) -> dict[str, int]:
        return {
            "broker": self.settings.kafka_port,
            "controller": self.settings.kafka_controller_port,
        }

    def prepare(self) -> list[str]:
        s = self.settings
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
            admin = kafka_clients.admin_client(self.settings.kafka_bootstrap, timeout_s=3.0)
        except KafkaConfigurationError:
            raise
        except (KafkaError, OSError):
            return False
        try:
            admin.list_topics()
            return bool(admin.describe_cluster().get("brokers"))
        except (KafkaError, OSError):
            return False
        finally:
            admin.close()

    def log_paths(self) -> list[Path]:
        return [self.process.log_file, self.dir / "logs" / "server.log"]

    def _write_config(self) -> Path:
        s = self.settings
        conf_dir = self.dir / "conf"
        conf_dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "logs").mkdir(parents=True, exist_ok=True)
        values = {
            "host": s.host,
            "port": s.kafka_port,
            "controller_port": s.kafka_controller_port,
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
        heap = self.settings.kafka_heap
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
        # KRaft storage is formatted once, with a cluster id kept beside the data.
        if (self.dir / "data" / "meta.properties").exists():
            return
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        argv = [*jvm, "kafka.tools.StorageTool", "format", f"--cluster-id={cluster_id}"]
        argv += ["--config", str(config)]
        proc = subprocess.run(argv, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise StartupError(
                f"formatting Kafka storage in {self.dir / 'data'} failed:\n"
                + (proc.stdout + proc.stderr)[-2000:]
            )
