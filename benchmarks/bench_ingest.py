"""Part 2: ingest end to end beside the raw UNWIND limit and the naive projector."""

from __future__ import annotations

from dataclasses import dataclass, field

from benchmarks import pipeline
from benchmarks.pipeline import Prepared, Reference, check_graph, events_reference, log_reference
from benchmarks.report import Table, bar_plot, median, ratio
from benchmarks.servers import PrivateInfra


@dataclass
class IngestResult:
    """What later parts reuse: the live rate, a topic holding the whole workload and the
    fold of that topic's log (the reference of any side that reads it)."""

    live_events_per_s: float = 0.0
    topic: str = ""
    reference: Reference | None = None
    tables: list[Table] = field(default_factory=list)


def run(infra: PrivateInfra, data: Prepared, repeat: int) -> IngestResult:
    n = len(data.records)
    ours, lim, naive_per_event, topic = [], [], [], ""
    # A sample: 5% of the events, at least 500, at most 10,000 (at ~130 events/s the naive
    # side would take over two hours for 1M; its rate is what is reported).
    naive_count = min(n, max(500, min(n // 20, 10_000)))
    naive_reference = events_reference(data.events[:naive_count])  # events holds the first 10k
    checks: dict[str, str] = {}
    reference: Reference | None = None
    # Uncounted: Neo4j compiles and JIT-warms the writer's statements on first use; without
    # this the first side timed (ours) would pay for it and the later ones would not.
    pipeline.warm_up(infra, data)
    for i in range(repeat):
        print(f"  ingest repeat {i + 1}/{repeat}: end to end", flush=True)
        seconds, topic = pipeline.end_to_end(infra, data)
        reference = log_reference(infra, topic)  # each repeat's topic has its own stamps
        checks["ours"] = check_graph(infra, reference, "end to end")
        ours.append(seconds)
        print(f"  ingest repeat {i + 1}/{repeat}: naive ({naive_count} events)", flush=True)
        naive_per_event.append(pipeline.naive(infra, data, naive_count))
        checks["naive"] = check_graph(infra, naive_reference, "naive")
        print(f"  ingest repeat {i + 1}/{repeat}: limit", flush=True)
        lim.append(pipeline.limit(infra, data))
        assert data.bare is not None, "the ingest part needs the fold of the bare events"
        checks["limit"] = check_graph(infra, data.bare, "limit")
    rates = {
        "ours (Kafka -> projector -> Neo4j)": n / median(ours),
        "limit (UNWIND writer, no Kafka)": n / median(lim),
        f"naive (1 tx per event, first {naive_count})": 1 / median(naive_per_event),
    }
    table = Table(
        "ingest",
        f"Ingest, {n:,} events (median of {repeat})",
        ["side", "events/s", "seconds for all events", "graph check"],
    )
    for (side, rate), key in zip(rates.items(), ("ours", "limit", "naive"), strict=True):
        table.add(side, rate, n / rate, checks[key])
    ours_rate, lim_rate, naive_rate = rates.values()
    table.ratios = {
        "ours/limit": ratio(ours_rate, lim_rate),
        "ours/naive": ratio(ours_rate, naive_rate),
    }
    table.extra = {
        "seconds": {"ours": ours, "limit": lim, "naive_per_event": naive_per_event},
        "graph_checks": checks,
    }
    bar_plot("ingest", table.title, list(rates), list(rates.values()), "events/s")
    return IngestResult(ours_rate, topic, reference, [table])
