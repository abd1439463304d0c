"""Part 5: the SDK's emit() latency and its effect on a training step, beside the
openlineage-python client's synchronous HTTP emit to a local no-op server.

Both durabilities are measured: ``spool`` (the default: emit() returns once the event is
written to the spool file, so a killed process loses nothing) and ``memory`` (a hand-off to
memory; the sender writes the spool). The spool lives in a temporary directory.
"""

from __future__ import annotations

import tempfile
import threading
import time
import uuid
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import Job, Run, RunEvent, RunState
from openlineage.client.transport.http import HttpConfig, HttpTransport

from benchmarks.report import Table, bar_plot, percentile, ratio
from provgraph.client import Emitter
from provgraph.client.transport import Transport
from provgraph.schemas import Event, RunMetricsLogged
from provgraph.schemas.events.run import MetricPoint, RunMetricsLoggedPayload


class _Discard(Transport):
    """Accepts every batch at once: measures the emitter, not a network."""

    def send(self, batch: list[Event]) -> None:
        del batch


class _NoOp(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def _metrics_event(emitter: Emitter, step: int) -> Event:
    points = (MetricPoint(name="loss", step=step, value=1.0 / (step + 1)),)
    return emitter.make(
        RunMetricsLogged, RunMetricsLoggedPayload(run_id="bench-run", points=points)
    )


def _emit_latencies(emitter: Emitter, n: int) -> list[float]:
    events = [_metrics_event(emitter, i) for i in range(n)]
    out = []
    for event in events:
        start = time.perf_counter_ns()
        emitter.emit(event)
        out.append((time.perf_counter_ns() - start) / 1000)
    return out


def _train_step(work: int) -> float:
    acc = 0.0
    for i in range(work):
        acc += i * 0.5
    return acc


def _step_times(emitter: Emitter | None, steps: int, work: int) -> list[float]:
    out = []
    for step in range(steps):
        start = time.perf_counter_ns()
        _train_step(work)
        if emitter is not None:
            emitter.emit(_metrics_event(emitter, step))
        out.append((time.perf_counter_ns() - start) / 1000)
    return out


def _openlineage_latencies(n: int) -> list[float]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NoOp)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    client = OpenLineageClient(transport=HttpTransport(HttpConfig(url=url)))
    out = []
    try:
        for _ in range(n):
            event = RunEvent(
                eventType=RunState.RUNNING,
                eventTime=datetime.now(UTC).isoformat(),
                run=Run(runId=str(uuid.uuid4())),
                job=Job(namespace="bench", name="train"),
                producer="https://provgraph.dev/benchmarks",
            )
            start = time.perf_counter_ns()
            client.emit(event)
            out.append((time.perf_counter_ns() - start) / 1000)
    finally:
        server.shutdown()
    return out


def _emitter(spool: str, n: int, durability: str) -> Emitter:
    return Emitter(
        _Discard(),
        name="bench",
        project="bench",
        actor="service:bench",
        spool_dir=spool,
        max_queue=max(10_000, n),
        durability=durability,
    )


def _ours(n: int, repeat: int) -> tuple[dict[str, list[float]], list[float], list[float]]:
    """emit() latencies per durability, and step times without and with (spool) emits."""
    emits: dict[str, list[float]] = {"spool": [], "memory": []}
    plain: list[float] = []
    with_emit: list[float] = []
    for _ in range(repeat):
        for durability in emits:  # interleaved, so that both see the same machine
            with tempfile.TemporaryDirectory() as spool:
                emitter = _emitter(spool, n, durability)
                emits[durability] += _emit_latencies(emitter, n)
                if durability == "spool":
                    plain += _step_times(None, 500, 20_000)
                    with_emit += _step_times(emitter, 500, 20_000)
                emitter.close(timeout=30)
    return emits, plain, with_emit


def run(n: int, repeat: int) -> Table:
    emits, plain, with_emit = _ours(n, repeat)
    spool, memory = emits["spool"], emits["memory"]
    theirs = _openlineage_latencies(min(n, 2000) * repeat)
    table = Table(
        "sdk",
        f"SDK emit() latency, microseconds ({len(spool):,} emits per durability; "
        f"OpenLineage {len(theirs):,})",
        ["client", "p50 us", "p99 us"],
    )
    table.add(
        "provgraph Emitter.emit, durability=spool (default: written to the spool file)",
        percentile(spool, 50),
        percentile(spool, 99),
    )
    table.add(
        "provgraph Emitter.emit, durability=memory (hand-off to memory)",
        percentile(memory, 50),
        percentile(memory, 99),
    )
    table.add(
        "openlineage-python HTTP emit (no-op server)",
        percentile(theirs, 50),
        percentile(theirs, 99),
    )
    step0, step1 = percentile(plain, 50), percentile(with_emit, 50)
    table.add("training step without emit (p50)", step0, percentile(plain, 99))
    table.add("training step with make+emit, spool (p50)", step1, percentile(with_emit, 99))
    table.ratios = {
        "emit p99 (us)": round(percentile(spool, 99), 1),
        "emit p99 memory (us)": round(percentile(memory, 99), 1),
        "spool/memory p99": ratio(percentile(spool, 99), percentile(memory, 99)),
        "openlineage/ours p99": ratio(percentile(theirs, 99), percentile(spool, 99)),
        "step overhead p50 (%)": round(100 * (step1 - step0) / step0, 2),
    }
    bar_plot(
        "sdk",
        "emit() p50 / p99 (us)",
        [
            "spool p50",
            "spool p99",
            "memory p50",
            "memory p99",
            "openlineage p50",
            "openlineage p99",
        ],
        [
            percentile(spool, 50),
            percentile(spool, 99),
            percentile(memory, 50),
            percentile(memory, 99),
            percentile(theirs, 50),
            percentile(theirs, 99),
        ],
        "microseconds",
    )
    return table
