"""The shape of the local Kafka: one KRaft node, or a quorum of broker-controllers.

Pure parts (ports, the voters string, replication) and the one record kept beside the data:
which cluster id the nodes were formatted with, and for how many of them. A node's storage is
formatted once; a quorum of a different size over the same data would be another cluster, so
the launcher refuses it with what to do instead.
"""

from __future__ import annotations

import base64
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path

from provgraph.infra.errors import InfraError

MAX_BROKERS = 9
# Beyond three copies a loopback cluster gains nothing but disk and memory.
MAX_REPLICATION = 3
RECORD = "cluster.properties"
_record_lock = threading.Lock()  # the nodes are prepared in parallel: one writes the record


class TopologyError(InfraError):
    """The requested number of brokers does not fit the ports or the data already formatted."""


@dataclass(frozen=True)
class KafkaNode:
    """One broker-controller: its node id and its two loopback ports."""

    node_id: int
    port: int
    controller_port: int

    @property
    def name(self) -> str:
        # Node 1 keeps the single broker's name, so its pid file and data dir stay as they are.
        return "kafka" if self.node_id == 1 else f"kafka-{self.node_id}"


@dataclass(frozen=True)
class KafkaCluster:
    """The nodes of the local Kafka and what their topics need to survive one of them."""

    host: str
    nodes: tuple[KafkaNode, ...]

    @classmethod
    def plan(cls, host: str, brokers: int, port: int, controller_port: int) -> KafkaCluster:
        """`brokers` nodes on consecutive ports: node n listens on `port + 2(n-1)` and its
        controller on `controller_port + 2(n-1)` (9092/9093, 9094/9095, 9096/9097)."""
        if not 1 <= brokers <= MAX_BROKERS:
            raise TopologyError(
                f"PROVGRAPH_KAFKA_BROKERS={brokers}: a local Kafka runs 1 to {MAX_BROKERS} brokers"
            )
        nodes = tuple(
            KafkaNode(n, port + 2 * (n - 1), controller_port + 2 * (n - 1))
            for n in range(1, brokers + 1)
        )
        used = [p for node in nodes for p in (node.port, node.controller_port)]
        if len(set(used)) != len(used) or max(used) > 65535:
            raise TopologyError(
                f"{brokers} Kafka brokers from port {port} (controllers from {controller_port}) "
                f"need the distinct ports {sorted(used)}; choose PROVGRAPH_KAFKA_PORT and "
                "PROVGRAPH_KAFKA_CONTROLLER_PORT one apart (e.g. 9092 and 9093)"
            )
        return cls(host, nodes)

    @property
    def brokers(self) -> int:
        return len(self.nodes)

    def node(self, node_id: int) -> KafkaNode:
        for node in self.nodes:
            if node.node_id == node_id:
                return node
        raise TopologyError(f"no Kafka node {node_id} in a cluster of {self.brokers}")

    @property
    def bootstrap(self) -> str:
        """Every broker, comma-separated: a client reaches the cluster while one is down."""
        return ",".join(f"{self.host}:{node.port}" for node in self.nodes)

    @property
    def quorum_voters(self) -> str:
        """The static KRaft quorum: `id@host:controller_port` of every node."""
        return ",".join(f"{n.node_id}@{self.host}:{n.controller_port}" for n in self.nodes)

    @property
    def replication(self) -> int:
        """Copies of every topic: one per broker, at most three."""
        return min(self.brokers, MAX_REPLICATION)

    @property
    def min_insync(self) -> int:
        """Copies a write must reach: all but one, so that one broker may be lost."""
        return max(1, self.replication - 1)


def recorded_brokers(first_node_dir: Path) -> int | None:
    """How many nodes the data under `first_node_dir` was formatted for (None: not yet)."""
    record = _read(first_node_dir / RECORD)
    if "brokers" in record:
        return int(record["brokers"])
    # Data of a launcher from before the record: one broker.
    return 1 if (first_node_dir / "data" / "meta.properties").exists() else None


def check_brokers(first_node_dir: Path, brokers: int) -> None:
    """Refuse `brokers` nodes over data formatted for another number (a different quorum)."""
    found = recorded_brokers(first_node_dir)
    if found is not None and found != brokers:
        raise TopologyError(
            f"the Kafka data in {first_node_dir.parent} belongs to a cluster of {found} "
            f"broker(s), not {brokers}: run `provgraph infra up --brokers {found}`, or "
            "`provgraph infra down --wipe` first (it deletes the event log) to start another"
        )


def cluster_id(first_node_dir: Path, brokers: int) -> str:
    """The cluster id every node is formatted with, created and recorded on first use."""
    with _record_lock:
        check_brokers(first_node_dir, brokers)
        path = first_node_dir / RECORD
        record = _read(path) or _read(first_node_dir / "data" / "meta.properties")
        found = record.get("cluster.id")
        if found and path.exists():
            return found
        new = found or base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"# the local Kafka's formatted shape\ncluster.id={new}\nbrokers={brokers}\n"
        )
        return new


def _read(path: Path) -> dict[str, str]:
    """A Java properties file's `key=value` lines (comments and blanks skipped)."""
    if not path.exists():
        return {}
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    return {k.strip(): v.strip() for k, v in pairs if not k.lstrip().startswith("#")}
