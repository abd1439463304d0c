"""Parts replay, memory and verify: replay events/s against live ingest, the projector's RSS
through a backlog, and `provgraph verify`'s events/s and RSS over the same log."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from math import nan

import psutil

from benchmarks.pipeline import Prepared, Reference, check_graph
from benchmarks.report import PartFailed, Table, line_plot, median, ratio
from benchmarks.servers import PrivateInfra
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.replay import replay

# The projector as its own process, through a backlog until idle (or its first argument's
# seconds): what `provgraph projector` runs, without the endless loop, with its driver (which
# leaves out the server's notices about property keys an empty graph does not hold yet: a
# failure's last lines are its own).
_PROJECTOR = """
import sys
from provgraph.ingest.projector.run import build_projector
from provgraph.ingest.settings import IngestSettings
s = IngestSettings()
with s.neo4j_driver() as driver:
    projector = build_projector(s, driver)
    projector.run_until_idle(timeout_s=float(sys.argv[1]))
    projector.close()
"""


def projector_timeout_s(events: int) -> float:
    """How long the projector process may take through a backlog of `events`: a bound against
    a hang, not a target. An hour, or the backlog at 500 events/s when that is longer (10M
    events went through in 57 and in over 60 minutes on a 2-core machine)."""
    return max(3600.0, events / 500)


def run_replay(
    infra: PrivateInfra,
    data: Prepared,
    topic: str,
    reference: Callable[[], Reference],
    live: float,
    repeat: int,
    beside: bool = False,
) -> Table:
    """`topic` holds the workload; `reference` returns the fold of its log (`beside`: it is
    being folded meanwhile, in this process, on the same cores as the first replay).

    Each replay is `provgraph replay`'s own function in a process of its own (`_REPLAY`), as
    the command runs it, timed from its start to its end; its RSS sampled as the projector's.
    `live`: live ingest's events/s, 0 when the ingest part did not run (no ratio then)."""
    n, seconds, peaks, check = len(data.records), [], [], ""
    for _ in range(repeat):
        infra.clear_graph()
        run = Sampled([sys.executable, "-c", _REPLAY], infra.ingest_settings(topic), "replay")
        run.check()
        records, took = _replayed(run.output)
        if records != n:
            raise RuntimeError(f"replay read {records} records, expected {n}")
        seconds.append(took)
        peaks.append(max(run.rss, default=nan))
        check = check_graph(infra, reference(), "replay")
    rate = n / median(seconds)
    first = "; the log folded beside the first" if beside and repeat > 1 else ""
    table = Table(
        "replay",
        f"Replay from offset 0 into an empty graph, {n:,} events (median of {repeat}{first})",
        ["side", "events/s"],
    )
    table.add("replay (provgraph replay" + (", the log folded beside it)" if beside else ")"), rate)
    if live:
        table.add("live ingest (end to end)", live)
        table.ratios = {"replay/live": ratio(rate, live)}
    table.extra = {"seconds": seconds, "rss_peak_mb": peaks, "graph_checks": {"replay": check}}
    return table


# `provgraph replay` as its own process (its driver, its batches, its overlap), without the
# command's progress bar; the last line printed is "<records> <seconds>", timed from the start
# of the replay to its end (not the interpreter's start-up).
_REPLAY = """
import time
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools.replay import replay
s = IngestSettings()
with s.neo4j_driver() as driver:
    start = time.perf_counter()
    records, _, _ = replay(s, GraphWriter(driver, s.neo4j_database))
    print(records, time.perf_counter() - start, flush=True)
"""


def _replayed(output: str) -> tuple[int, float]:
    """(records, seconds) from the last line of `_REPLAY`'s output."""
    last = output.strip().splitlines()[-1:] or [""]
    try:
        records, took = last[0].split()
        return int(records), float(took)
    except ValueError:
        raise RuntimeError(f"replay printed no record count and time: {output[-2000:]!r}") from None


class Sampled:
    """A child process run to its end with its RSS sampled every 0.2 s."""

    def __init__(self, args: list[str], settings: IngestSettings, what: str) -> None:
        """Runs it to its end; `failed` then holds why it exited non-zero ("" when it did
        not), and `check()` raises it."""
        env = {
            **os.environ,
            **{
                f"PROVGRAPH_{k.upper()}": str(v)
                for k, v in settings.model_dump().items()
                if v is not None
            },
        }
        proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        watch, start = psutil.Process(proc.pid), time.perf_counter()
        self.times: list[float] = []
        self.rss: list[float] = []
        while proc.poll() is None:
            try:
                mb = watch.memory_info().rss / 2**20
            except psutil.NoSuchProcess:
                break
            if mb > 0:  # an exited process not yet reaped reports 0
                self.rss.append(mb)
                self.times.append(time.perf_counter() - start)
            time.sleep(0.2)
        self.elapsed = time.perf_counter() - start
        self.output = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
        self.failed = ""
        if proc.returncode != 0:
            tail = "\n  ".join(self.output.splitlines()[-12:])
            self.failed = f"{what} failed ({proc.returncode}):\n  {tail}"

    def check(self) -> None:
        if self.failed:
            raise RuntimeError(self.failed)


def run_memory(
    infra: PrivateInfra,
    data: Prepared,
    topic: str,
    reference: Callable[[], Reference],
    beside: bool = False,
) -> Table:
    """Sample the projector process's RSS every 0.2 s while it works through `topic` (whose
    log folds to what `reference` returns once the projector is done; `beside`: it is being
    folded meanwhile, on the same cores, so the projector's rate is not its own)."""
    infra.clear_graph()
    n = len(data.records)
    run = Sampled(
        [sys.executable, "-c", _PROJECTOR, str(projector_timeout_s(n))],
        infra.ingest_settings(topic),
        "projector",
    )
    rss, times, elapsed = run.rss, run.times, run.elapsed
    if not rss:  # failed before its first sample: nothing measured to keep
        run.check()
    # Growth after the first quarter: by then the imports are done and full batches flow.
    settled = rss[len(rss) // 4]
    table = Table(
        "memory",
        f"Projector RSS through a backlog of {n:,} events",
        ["measure", "value"],
    )
    table.add("seconds, process start to exit", elapsed)
    rate = "events/s incl. start-up and group join"
    # A projector that failed did not apply them all: no rate (its last lines say how far).
    table.add(
        rate + (" (the log folded beside it)" if beside else ""), nan if run.failed else n / elapsed
    )
    table.add("RSS after the first quarter of the run (MB)", settled)
    table.add("RSS peak (MB)", max(rss))
    table.add("RSS at the end (MB)", rss[-1])
    table.ratios = {"RSS growth after the first quarter (MB)": round(max(rss) - settled, 1)}
    table.extra = {"rss_mb": rss, "t_s": times}
    try:  # an hour of samples at 10M: kept when the projector or the graph turns out wrong
        run.check()
        check = check_graph(infra, reference(), "projector through a backlog")
    except Exception as e:
        raise PartFailed(table, e) from e
    table.extra["graph_checks"] = {"projector": check}
    line_plot("memory", table.title, {"RSS": (times, rss)}, "seconds", "MB")
    return table


NO_DIFFERENCES = "no differences (verify compares the log fold with Neo4j)"


def run_verify(infra: PrivateInfra, data: Prepared, topic: str, replayed: bool) -> Table:
    """`provgraph verify` as its own process over `topic`, whose fold the graph holds (after
    ingest, replay or the backlog; else it is replayed first, untimed), RSS sampled."""
    settings = infra.ingest_settings(topic)
    if not replayed:
        infra.clear_graph()
        replay(settings, GraphWriter(infra.driver))
    run = Sampled([sys.executable, "-m", "provgraph.cli", "verify"], settings, "verify")
    run.check()
    if "verify: no differences" not in run.output:
        raise RuntimeError(f"verify did not find the graph equal to its log:\n{run.output}")
    n = len(data.records)
    table = Table(
        "verify",
        f"provgraph verify over a log of {n:,} events (the log folded, events and metric series"
        " spilled to disk, then compared with Neo4j part by part)",
        ["measure", "value"],
    )
    table.add("seconds, process start to exit", run.elapsed)
    table.add("events/s", n / run.elapsed)
    table.add("RSS peak (MB)", max(run.rss))
    table.ratios = {"RSS peak per 1M events (MB)": round(max(run.rss) * 1e6 / n, 1)}
    table.extra = {"rss_mb": run.rss, "t_s": run.times, "graph_checks": {"verify": NO_DIFFERENCES}}
    line_plot("verify", table.title, {"RSS": (run.times, run.rss)}, "seconds", "MB")
    return table
