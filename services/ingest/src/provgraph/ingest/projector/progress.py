"""Is the projector consuming? Its progress as its consumer group shows it in Kafka.

The projector stamps each Kafka commit (after every batch, and when it is assigned partitions)
with the time it made it, in the commit's metadata. Kafka commits are the projector's progress
hint (Neo4j holds the applied offsets), and a hint is what a health check needs: from the
group's members, its committed offsets with their stamps and the topic's end offsets, anyone
who can reach Kafka can tell whether events are pending and since when nothing moved, without
Neo4j credentials and without watching the projector for a while.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from provgraph.ingest.settings import IngestSettings

_STAMP_KEY = "progress_at"
_CLIENT_ID_PREFIX = "provgraph-projector-"
# A status command must answer quickly, also when Kafka is down.
_STATUS_TIMEOUT_S = 5.0


def progress_stamp(now: float | None = None) -> str:
    """The metadata of a commit made now: its time (epoch seconds)."""
    return json.dumps({_STAMP_KEY: round(time.time() if now is None else now, 3)})


def stamp_time(metadata: str | None) -> float | None:
    """The time in a commit's metadata; None for a commit without a stamp."""
    try:
        value = json.loads(metadata or "")[_STAMP_KEY]
    except (ValueError, TypeError, KeyError):
        return None
    return float(value) if isinstance(value, int | float) else None


def client_id(pid: int) -> str:
    """The Kafka client id of the projector process `pid`: how the group names its member."""
    return f"{_CLIENT_ID_PREFIX}{pid}"


@dataclass(frozen=True)
class PartitionProgress:
    """One partition of the events topic as the group has read it."""

    partition: int
    pending: int
    progress_at: float | None


@dataclass(frozen=True)
class GroupView:
    """The projector's consumer group in Kafka: state, members' client ids, partitions."""

    group: str
    state: str
    members: tuple[str, ...]
    partitions: tuple[PartitionProgress, ...]


def verdict(
    view: GroupView, *, pid: int, started_at: float, now: float, stalled_after_s: float
) -> str | None:
    """Why the projector process `pid` (started at `started_at`) is not consuming, or None.

    Degraded: not a member of its group, or events pending on a partition whose last commit
    (or the process start, whichever is later) is `stalled_after_s` old. A process younger
    than that is still joining, and gets the time to do it.
    """
    if now - started_at >= stalled_after_s and client_id(pid) not in view.members:
        others = f"{len(view.members)} other members" if view.members else "no members"
        return f"pid {pid} is not a member of consumer group {view.group} ({view.state}, {others})"
    stalled = [
        p
        for p in view.partitions
        if p.pending > 0 and now - max(p.progress_at or 0.0, started_at) >= stalled_after_s
    ]
    if not stalled:
        return None
    since = max(max(p.progress_at or 0.0, started_at) for p in stalled)
    where = ", ".join(str(p.partition) for p in stalled)
    pending = sum(p.pending for p in stalled)
    return f"{pending} events pending (partitions {where}), no progress for {now - since:.0f}s"


def read_group(settings: IngestSettings) -> GroupView:
    """The projector's group as Kafka has it now (KafkaError when Kafka does not answer)."""
    from kafka import TopicPartition
    from kafka.admin import OffsetSpec

    from provgraph.core import kafka_clients

    admin = kafka_clients.admin_client(
        settings.kafka_bootstrap, timeout_s=_STATUS_TIMEOUT_S, client_id="provgraph-status"
    )
    try:
        group = settings.projector_group
        described = admin.describe_groups([group])[group]
        committed = admin.list_group_offsets(group).get(group, {})
        topics = admin.describe_topics([settings.events_topic])
        tps = [
            TopicPartition(settings.events_topic, p["partition_index"])
            for t in topics
            for p in t["partitions"]
        ]
        ends = admin.list_partition_offsets({tp: OffsetSpec.LATEST for tp in tps})
    finally:
        admin.close()
    return group_view(group, described, committed, {tp: e.offset for tp, e in ends.items()})


def group_view(
    group: str, described: Mapping[str, Any], committed: Mapping[Any, Any], ends: Mapping[Any, int]
) -> GroupView:
    partitions = []
    for tp, end in sorted(ends.items(), key=lambda item: int(item[0].partition)):
        done = committed.get(tp)
        position = done.offset if done is not None and done.offset >= 0 else 0
        stamp = stamp_time(done.metadata) if done is not None else None
        partitions.append(PartitionProgress(tp.partition, max(0, end - position), stamp))
    members = tuple(str(m["client_id"]) for m in described.get("members") or ())
    state = str(described.get("group_state") or "unknown")
    return GroupView(group, state, members, tuple(partitions))


def projector_health(settings: IngestSettings, pid: int, started_at: float) -> str | None:
    """Why the projector process `pid` is not consuming, or None when it is (or has nothing
    to do). Kafka out of reach is a reason too: no projector consumes then."""
    try:
        view = read_group(settings)
    except Exception as exc:  # kafka-python raises many unrelated types when a broker is down
        return f"cannot read consumer group {settings.projector_group} from Kafka: {exc}"
    return verdict(
        view,
        pid=pid,
        started_at=started_at,
        now=time.time(),
        stalled_after_s=settings.projector_stalled_after_s,
    )
