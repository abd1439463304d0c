"""The local Kafka's shape: one node as before, or a quorum of N on consecutive ports, and
the record that keeps a cluster's data from being started with another number of nodes."""

from __future__ import annotations

from pathlib import Path

import pytest

from provgraph.core.settings import KafkaSettings
from provgraph.infra.kafka import KafkaServer, kafka_cluster, node_config
from provgraph.infra.kafka_cluster import (
    KafkaCluster,
    TopologyError,
    check_brokers,
    cluster_id,
    recorded_brokers,
)
from provgraph.infra.settings import InfraSettings

pytestmark = pytest.mark.unit
PORTS = {"host": "127.0.0.1", "kafka_port": 9092, "kafka_controller_port": 9093}


def test_one_broker_is_the_single_node_of_before() -> None:
    one = KafkaCluster.plan("127.0.0.1", 1, 9092, 9093)
    assert [(n.node_id, n.name, n.port, n.controller_port) for n in one.nodes] == [
        (1, "kafka", 9092, 9093)
    ]
    assert (one.bootstrap, one.quorum_voters) == ("127.0.0.1:9092", "1@127.0.0.1:9093")
    assert (one.replication, one.min_insync) == (1, 1)


def test_three_brokers_sit_on_consecutive_ports_and_survive_one_loss() -> None:
    three = KafkaCluster.plan("127.0.0.1", 3, 9092, 9093)
    assert [(n.name, n.port, n.controller_port) for n in three.nodes] == [
        ("kafka", 9092, 9093),
        ("kafka-2", 9094, 9095),
        ("kafka-3", 9096, 9097),
    ]
    assert three.bootstrap == "127.0.0.1:9092,127.0.0.1:9094,127.0.0.1:9096"
    assert three.quorum_voters == "1@127.0.0.1:9093,2@127.0.0.1:9095,3@127.0.0.1:9097"
    assert (three.replication, three.min_insync) == (3, 2)


@pytest.mark.parametrize(("brokers", "copies"), [(2, (2, 1)), (5, (3, 2)), (9, (3, 2))])
def test_replication_is_capped_at_three_copies(brokers: int, copies: tuple[int, int]) -> None:
    cluster = KafkaCluster.plan("127.0.0.1", brokers, 20000, 20001)
    assert (cluster.replication, cluster.min_insync) == copies
    ports = [p for n in cluster.nodes for p in (n.port, n.controller_port)]
    assert len(set(ports)) == 2 * brokers


@pytest.mark.parametrize("brokers", [0, 10, 30])
def test_a_broker_count_out_of_range_is_refused(brokers: int) -> None:
    with pytest.raises(TopologyError, match=f"PROVGRAPH_KAFKA_BROKERS={brokers}"):
        KafkaCluster.plan("127.0.0.1", brokers, 9092, 9093)


@pytest.mark.parametrize(("port", "controller"), [(9092, 9094), (9092, 9092), (65534, 65535)])
def test_ports_that_collide_or_overflow_are_refused(port: int, controller: int) -> None:
    with pytest.raises(TopologyError, match="distinct ports"):
        KafkaCluster.plan("127.0.0.1", 3, port, controller)


def test_every_node_is_configured_for_the_whole_quorum() -> None:
    three = KafkaCluster.plan("127.0.0.1", 3, 9092, 9093)
    second = node_config(three, 2)
    assert second["node_id"] == 2
    assert (second["port"], second["controller_port"]) == (9094, 9095)
    assert second["quorum_voters"] == three.quorum_voters
    with pytest.raises(TopologyError, match="no Kafka node 4"):
        node_config(three, 4)


def test_the_rendered_config_of_a_cluster_node(tmp_path: Path) -> None:
    settings = InfraSettings(home=tmp_path, kafka_brokers=3, **PORTS)
    node = KafkaServer(settings, 3)
    text = node._write_config().read_text()
    for line in (
        "node.id=3",
        "controller.quorum.voters=1@127.0.0.1:9093,2@127.0.0.1:9095,3@127.0.0.1:9097",
        "listeners=PLAINTEXT://127.0.0.1:9096,CONTROLLER://127.0.0.1:9097",
        "default.replication.factor=3",
        "min.insync.replicas=2",
        "offsets.topic.replication.factor=3",
        "transaction.state.log.min.isr=2",
    ):
        assert f"\n{line}\n" in text, line
    assert node.dir == settings.state_dir / "kafka-3"
    assert node.marker() != KafkaServer(settings, 1).marker()


def test_the_single_broker_keeps_its_dir_and_config(tmp_path: Path) -> None:
    settings = InfraSettings(home=tmp_path, kafka_brokers=None, **PORTS)
    node = KafkaServer(settings)
    text = node._write_config().read_text()
    assert node.dir == settings.state_dir / "kafka"
    assert "\ncontroller.quorum.voters=1@127.0.0.1:9093\n" in text
    assert "\ndefault.replication.factor=1\n" in text
    assert node.ports() == {"broker": 9092, "controller": 9093}


def test_the_nodes_share_one_recorded_cluster_id(tmp_path: Path) -> None:
    first = tmp_path / "kafka"
    assert recorded_brokers(first) is None
    found = cluster_id(first, 3)
    assert cluster_id(first, 3) == found
    assert recorded_brokers(first) == 3


def test_a_cluster_is_not_started_over_data_of_another_size(tmp_path: Path) -> None:
    first = tmp_path / "kafka"
    cluster_id(first, 3)
    for brokers in (1, 2, 5):
        with pytest.raises(TopologyError, match="belongs to a cluster of 3 broker"):
            check_brokers(first, brokers)
    check_brokers(first, 3)


def test_data_of_the_launcher_before_the_record_is_one_broker(tmp_path: Path) -> None:
    first = tmp_path / "kafka"
    (first / "data").mkdir(parents=True)
    (first / "data" / "meta.properties").write_text("cluster.id=old-id\nnode.id=1\n")
    assert recorded_brokers(first) == 1
    with pytest.raises(TopologyError, match="--wipe"):
        check_brokers(first, 3)
    assert cluster_id(first, 1) == "old-id"


def test_unset_brokers_follow_the_recorded_data(tmp_path: Path) -> None:
    settings = InfraSettings(home=tmp_path, kafka_brokers=None, **PORTS)
    assert kafka_cluster(settings).brokers == 1
    cluster_id(settings.state_dir / "kafka", 3)
    assert kafka_cluster(settings).brokers == 3
    assert kafka_cluster(settings.model_copy(update={"kafka_brokers": 1})).brokers == 1


def test_min_insync_above_the_replication_is_refused() -> None:
    with pytest.raises(ValueError, match="PROVGRAPH_TOPIC_MIN_INSYNC_REPLICAS=3 is more"):
        KafkaSettings(topic_replication=2, topic_min_insync_replicas=3)
    assert KafkaSettings(topic_replication=3, topic_min_insync_replicas=2).topic_replication == 3
