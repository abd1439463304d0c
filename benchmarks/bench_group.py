"""A projector group: N `provgraph projector` processes in one consumer group through the same
backlog (6 partitions), for N = 1, 2, 3, each on an empty graph, and N = 2 once more giving
numbers in the whole log's order (`projector_exact_group_numbers`); events/s and the ratio to
N=1.

The clock starts when the processes are spawned and stops when every partition's offset stored
in Neo4j (the one the projector writes in the same transaction as the batch) has reached the
end of the topic. A second rate starts once every member holds its share of the partitions
(the group has settled: start-up, schema check and rebalances are behind it). Every run must
leave the graph equal to the fold of the log (`pipeline.check_graph`), or no time is reported;
only where the members give numbers in their own order may the experiments' and runs' numbers
differ (`pipeline.check_graph_but_numbers`).

On one machine the members share its cores with Kafka and Neo4j, and every member writes to
the one Neo4j: the ratio says how much a group gains on this machine, not on a bigger one
(docs/scaling.md).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from kafka import KafkaConsumer, TopicPartition

from benchmarks.pipeline import (
    BenchmarkError,
    Prepared,
    check_graph,
    check_graph_but_numbers,
    fill_topic,
    log_reference,
)
from benchmarks.report import Table, median, ratio
from benchmarks.servers import PrivateInfra
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings

# (members, numbers in the whole log's order): one member numbers in the log's order anyway
GROUPS = ((1, False), (2, False), (3, False), (2, True))
PARTITIONS = 6  # fill_topic's topics: the most members that can each hold a partition
TIMEOUT_S = 1800.0
_ASSIGNED = re.compile(r"assigned partitions \[([0-9, ]*)\]")


@dataclass(frozen=True)
class GroupRun:
    """One run of N members: seconds from spawn, and from a settled group, to caught up."""

    members: int
    seconds: float
    settled_seconds: float
    settled_events: int


def run(infra: PrivateInfra, data: Prepared, repeat: int) -> Table:
    """Fill a topic with the workload, then time each group size through it."""
    print("  group (projector processes)", flush=True)
    topic = fill_topic(infra, data, "group")
    reference = log_reference(infra, topic)  # the fold of the log, computed before any clock
    ends = _end_offsets(infra.bootstrap, topic)
    n = sum(ends.values())
    if n != len(data.records):
        raise BenchmarkError(f"group: the topic holds {n} records, expected {len(data.records)}")
    runs: dict[str, list[GroupRun]] = {}
    checks: dict[str, str] = {}
    for members, exact in GROUPS:
        label = f"{members}, exact numbers" if exact else str(members)
        for _ in range(repeat):
            infra.clear_graph()
            runs.setdefault(label, []).append(_one_run(infra, topic, ends, members, exact))
            check = check_graph if exact or members == 1 else check_graph_but_numbers
            checks[f"{label} projectors"] = check(infra, reference, f"{label} members")
    return _table(runs, n, repeat, checks)


def _one_run(
    infra: PrivateInfra, topic: str, ends: dict[int, int], members: int, exact: bool
) -> GroupRun:
    settings = infra.ingest_settings(topic).model_copy(  # a fresh consumer group every run
        update={"projector_exact_group_numbers": exact}
    )
    with tempfile.TemporaryDirectory(prefix="bench-group-") as logs:
        paths = [Path(logs) / f"member-{i}.log" for i in range(members)]
        start = time.perf_counter()
        procs = [_spawn(settings, path) for path in paths]
        try:
            settled_at, settled_applied = _wait(infra, topic, ends, procs, paths)
            seconds = time.perf_counter() - start
        finally:
            _stop(procs)
    return GroupRun(
        members, seconds, seconds - (settled_at - start), sum(ends.values()) - settled_applied
    )


def _spawn(settings: IngestSettings, log: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROVGRAPH_")}
    env.update({f"PROVGRAPH_{k.upper()}": str(v) for k, v in settings.model_dump().items()})
    argv = [sys.executable, "-m", "provgraph.cli", "projector", "--topic", settings.events_topic]
    with log.open("wb") as out:
        return subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT)


def _wait(
    infra: PrivateInfra,
    topic: str,
    ends: dict[int, int],
    procs: list[subprocess.Popen[bytes]],
    logs: list[Path],
) -> tuple[float, int]:
    """Poll until caught up; (when the group settled, records applied by then)."""
    writer, deadline = GraphWriter(infra.driver), time.monotonic() + TIMEOUT_S
    settled: tuple[float, int] | None = None
    while True:
        stored = writer.read_offsets(topic)
        applied = sum(stored.get(p, -1) + 1 for p in ends)
        if settled is None and _settled(logs):
            settled = (time.perf_counter(), applied)
        if all(stored.get(p, -1) + 1 >= end for p, end in ends.items()):
            return settled or (time.perf_counter(), applied)
        for proc, log in zip(procs, logs, strict=True):
            if proc.poll() is not None:
                tail = log.read_text(errors="replace")[-2000:]
                raise BenchmarkError(f"group: a projector exited ({proc.returncode}):\n{tail}")
        if time.monotonic() > deadline:
            raise BenchmarkError(f"group: not caught up after {TIMEOUT_S:g} s")
        time.sleep(0.1)


def _settled(logs: list[Path]) -> bool:
    """Every member's latest assignment is its own, and together they hold every partition."""
    held: list[set[int]] = []
    for log in logs:
        found = _ASSIGNED.findall(log.read_text(errors="replace")) if log.exists() else []
        if not found:
            return False
        held.append({int(p) for p in found[-1].replace(" ", "").split(",") if p})
    union = set().union(*held)
    return union == set(range(PARTITIONS)) and sum(map(len, held)) == len(union)


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()  # SIGTERM: the projector finishes its batch and leaves the group
    for proc in procs:
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _end_offsets(bootstrap: str, topic: str) -> dict[int, int]:
    consumer = KafkaConsumer(bootstrap_servers=bootstrap)
    try:
        partitions = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        return {tp.partition: int(end) for tp, end in consumer.end_offsets(partitions).items()}
    finally:
        consumer.close()


def _table(runs: dict[str, list[GroupRun]], n: int, repeat: int, checks: dict[str, str]) -> Table:
    table = Table(
        "group",
        f"A projector group through a backlog of {n:,} events, {PARTITIONS} partitions"
        f" (median of {repeat}; each member its own process, all on this machine)",
        [
            "projectors",
            "seconds, spawn to caught up",
            "events/s",
            "events/s once settled",
            "ratio to 1",
        ],
    )
    rates = {m: n / median([r.seconds for r in rs]) for m, rs in runs.items()}
    settled = {m: median([_settled_rate(r) for r in rs]) for m, rs in runs.items()}
    for members, rs in runs.items():
        seconds = median([r.seconds for r in rs])
        table.add(
            members, seconds, rates[members], settled[members], ratio(rates[members], rates["1"])
        )
    table.ratios = {
        **{f"{m}/1 events/s": ratio(rates[m], rates["1"]) for m in runs if m != "1"},
        **{f"{m}/1 once settled": ratio(settled[m], settled["1"]) for m in runs if m != "1"},
    }
    table.extra = {
        "runs": {m: [r.__dict__ for r in rs] for m, rs in runs.items()},
        "graph_checks": checks,
    }
    return table


def _settled_rate(r: GroupRun) -> float:
    # Too short a settled window (a small smoke run) says nothing: NaN, not a wild number.
    return r.settled_events / r.settled_seconds if r.settled_seconds > 0.5 else float("nan")
