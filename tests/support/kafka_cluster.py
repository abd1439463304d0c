"""A private Kafka cluster for fault tests: three KRaft broker-controllers on free loopback
ports, started by the launcher's own classes, killed and restarted node by node."""

from __future__ import annotations

import os
import random
import signal
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from kafka.errors import KafkaError

from provgraph.core import kafka_clients
from provgraph.infra.kafka import KafkaServer, kafka_cluster
from provgraph.infra.process import port_accepts, port_is_free, wait_until
from provgraph.infra.settings import InfraSettings

_PORT_TRIES = 200


def free_port_block(size: int) -> int:
    """The first of `size` consecutive loopback ports that are all free now."""
    rng = random.Random()
    for _ in range(_PORT_TRIES):
        base = rng.randrange(20_000, 60_000 - size)
        if all(port_is_free("127.0.0.1", base + i) for i in range(size)):
            return base
    raise RuntimeError(f"no {size} consecutive free loopback ports in {_PORT_TRIES} tries")


class PrivateCluster:
    """`brokers` Kafka nodes under `home`, apart from the shared broker; a context manager
    that stops every node however the test ends."""

    def __init__(self, home: Path, brokers: int = 3, heap: str = "512m") -> None:
        base = free_port_block(2 * brokers)
        self.settings = InfraSettings(
            home=home,
            kafka_brokers=brokers,
            kafka_port=base,
            kafka_controller_port=base + 1,
            kafka_cluster_heap=heap,
        )
        self.cluster = kafka_cluster(self.settings)
        self.nodes = {
            n.node_id: KafkaServer(self.settings, n.node_id, self.cluster)
            for n in self.cluster.nodes
        }
        self._argv: dict[int, list[str]] = {}

    @property
    def bootstrap(self) -> str:
        return self.cluster.bootstrap

    def __enter__(self) -> PrivateCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self, timeout_s: float = 180.0) -> None:
        """Every node prepared side by side, started together, then waited for."""
        with ThreadPoolExecutor(max_workers=len(self.nodes)) as pool:
            argvs = list(pool.map(lambda node: node.prepare(), self.nodes.values()))
        for (node_id, node), argv in zip(self.nodes.items(), argvs, strict=True):
            self._argv[node_id] = argv
            node.process.start(argv)
        for node_id in self.nodes:
            self._await(node_id, timeout_s)

    def _await(self, node_id: int, timeout_s: float) -> None:
        node = self.nodes[node_id]
        if not wait_until(node.is_ready, timeout_s, interval_s=0.5):
            raise RuntimeError(f"{node.name} did not start:\n{node.process.log_tail()}")

    def kill(self, node_id: int) -> None:
        """SIGKILL node `node_id`, as a crash would, and wait until its ports are closed."""
        node = self.nodes[node_id]
        pid = node.process.pid()
        assert pid is not None, f"{node.name} is not running"
        os.killpg(pid, signal.SIGKILL)
        wait_until(lambda: node.process.pid() is None, 10.0)
        host = self.settings.host
        wait_until(lambda: not any(port_accepts(host, p) for p in node.ports().values()), 30.0)

    def restart(self, node_id: int, timeout_s: float = 180.0) -> None:
        self.nodes[node_id].process.start(self._argv[node_id])
        self._await(node_id, timeout_s)

    def stop(self) -> None:
        """Every running node stopped side by side (a broker's clean shutdown takes seconds)."""
        running = [node for node in self.nodes.values() if node.process.pid() is not None]
        if running:
            with ThreadPoolExecutor(max_workers=len(running)) as pool:
                list(pool.map(lambda node: node.process.stop(timeout_s=30), running))

    def partitions(self, topic: str) -> list[dict[str, Any]]:
        """The partitions of `topic` as the running nodes describe them (leader, in-sync
        replicas); empty while no answer comes (a node just killed may still be asked)."""
        host = self.settings.host
        live = [f"{host}:{n.node.port}" for n in self.nodes.values() if n.process.pid()]
        try:
            admin = kafka_clients.admin_client(",".join(live), timeout_s=10.0)
            try:
                described = admin.describe_topics([topic])
            finally:
                admin.close()
        except (KafkaError, OSError):
            return []
        return list(described[0]["partitions"]) if described else []

    def leaders(self, topic: str) -> dict[int, int]:
        """Partition -> its leader's node id."""
        return {p["partition_index"]: p["leader_id"] for p in self.partitions(topic)}

    def in_sync(self, topic: str, partitions: int, replicas: set[int]) -> bool:
        """Whether all `partitions` of `topic` have exactly `replicas` in sync and a leader
        among them."""
        found = self.partitions(topic)
        return len(found) == partitions and all(
            set(p["isr_nodes"]) == replicas and p["leader_id"] in replicas for p in found
        )
