"""Settings of the ingest service and the projector: one class, PROVGRAPH_* env vars."""

from __future__ import annotations

from pydantic import Field

from provgraph.core.settings import AuthSettings, KafkaSettings, Neo4jSettings


class IngestSettings(Neo4jSettings, KafkaSettings, AuthSettings):
    """Where the event log lives, how the HTTP ingest and the projector reach Kafka and Neo4j.

    The connection fields (and the producer's timeout, compression and linger) come from
    `provgraph.core.settings`; `source .provgraph/env` (written by `provgraph infra up`) sets
    the connection values.
    """

    ingest_host: str = "127.0.0.1"
    ingest_port: int = 8080
    max_body_bytes: int = 8 * 1024 * 1024
    retry_after_s: int = 5
    ready_cache_s: float = 2.0
    # How far a client's `occurred_at` may run ahead of the server's clock (ingest's own clock
    # at ingest; the log's append time in the projector) before the event is refused.
    max_clock_skew_s: float = Field(default=300.0, ge=0)
    # How long ingest's reads of the graph (tokens, owners, applied payload hashes) retry while
    # Neo4j is unreachable before the request is answered 503 with Retry-After (the driver's
    # own default, 30 s, kept callers waiting past their HTTP timeouts).
    graph_read_retry_s: float = Field(default=3.0, ge=0)

    # PROVGRAPH_OPENLINEAGE_NAMESPACE_PROJECTS: a JSON object mapping an OpenLineage namespace
    # (of a job or a dataset) to a provgraph project, e.g. {"s3://corpora": "llm-pretrain"}.
    # Unmapped namespaces belong to the project named by a slug of the namespace.
    openlineage_namespace_projects: dict[str, str] = Field(default_factory=dict)

    projector_group: str = "provgraph-projector"
    projector_max_batch: int = 5000
    projector_poll_timeout_ms: int = 500
    # How long the broker may hold the group consumer's fetch while nothing new arrives
    # (kafka-python's `fetch_max_wait_ms`): a record appended meanwhile is answered at once,
    # so it bounds the idle fetches, not the latency. Questions to the brokers (end offsets,
    # offsets for times) go on connections of their own, never queued behind that fetch.
    projector_fetch_max_wait_ms: int = Field(default=500, ge=0)
    # Records are released to the screens in the log's order (`log_order.OrderGate`): one
    # waits until every other partition holds a later record or was read to its end this long
    # after its append time. It covers brokers' clocks running behind the projector's and
    # replication to the in-sync replicas; it is the latency a record adds while the other
    # partitions are idle.
    projector_order_wait_ms: int = Field(default=100, ge=0)
    # A crashed projector's partitions move to the others after this long. Kafka's default,
    # 45 s, stalls the group that long after every crash; 10 s was too short for a busy
    # projector on a loaded 2-core machine (it lost its membership twice while working
    # through a 1M-event backlog; harmless for the graph, but a rebalance each time).
    projector_session_timeout_ms: int = 30_000
    # In a group of several projectors, give experiment and run numbers in the whole log's
    # order, as `verify` folds them: a member waits at a record that may number something
    # until the others have applied their numbering records before it. Exact, but a group
    # through a backlog then hands over at every such pair (benchmarks: about a quarter of
    # one member's rate with 2); off, each member numbers in its own partitions' order
    # (operations.md).
    projector_exact_group_numbers: bool = False
    # Retries while Neo4j (or, for the dead-letter topic, Kafka) is unavailable: exponential
    # from the first delay, capped.
    projector_backoff_initial_s: float = 0.5
    projector_backoff_max_s: float = 10.0
    # The consumer's reconnect attempts while a broker is down: exponential from 50 ms, capped
    # here. kafka-python's own cap, 30 s, left a projector idle for up to half a minute after
    # the broker was back; once a second is still no busy loop.
    projector_reconnect_backoff_max_ms: int = 1000
    # `provgraph services status` reports a projector as degraded when events are pending
    # and it made no progress (no Kafka commit) for this long.
    projector_stalled_after_s: float = 30.0
    # An INFO progress line at most this often, and only when records were read.
    projector_progress_log_s: float = 60.0
    # Decode and fold the next poll batch while one is being written (one batch in flight:
    # the next is screened and written only after the previous one committed). False runs
    # the stages one after another.
    projector_pipeline: bool = True
    # With the pipeline, how long the thread that decodes and folds may hold the interpreter
    # before the write thread gets it (the process's `sys.setswitchinterval`; Python's own is
    # 5 ms). Each reply from Neo4j wakes the write thread, which then waits for its turn:
    # at 5 ms those waits lengthen the write that the next batch waits on.
    projector_switch_interval_ms: float = Field(default=0.5, gt=0, le=100)
    # The projector, replay and verify run the interpreter's cyclic garbage collector every
    # this many allocations (`gc.set_threshold`; Python's own is 700, at which it walks each
    # batch being folded again and again: `provgraph.core.collector`); 0 keeps Python's.
    projector_gc_threshold: int = Field(default=10_000, ge=0)
    # `replay` and `verify` stop with an error when a partition gives no record for this long.
    log_read_stall_s: float = Field(default=120.0, gt=0)
    # Where `verify` keeps the log's applied events and metric series while it folds the log
    # (about 0.7 KB an event, deleted afterwards); default: the system's temporary folder.
    # Its memory then grows with the graph's entities, not with the events.
    verify_spill_dir: str | None = None
    dead_letter_timeout_s: float = 30.0
    # At start, the projector appends parked dead letters (an event type or schema version it
    # did not know) that it now understands back to the event log: at most this many dead
    # letters are read per start.
    redrive_max_records: int = 100_000
