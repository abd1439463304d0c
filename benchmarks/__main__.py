"""`python -m benchmarks [--scale 10000] [--only ingest,queries,...] [--repeat 3]`

Starts a private Kafka and Neo4j (free loopback ports, state in a temporary directory), runs
the chosen parts side by side, prints each table and writes JSON, Markdown and PNG files into
benchmarks/results/, then stops both servers. When a part fails, the tables of the parts
done before it (and what the failing part measured, when it can say) are still written,
marked failed in their `meta`, and the run exits non-zero.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import (
    bench_explorer,
    bench_group,
    bench_ingest,
    bench_kafka,
    bench_mlflow,
    bench_queries,
    bench_replay,
    bench_sdk,
    report,
)
from benchmarks.pipeline import Prepared, Reference, fill_topic, log_reference_beside
from benchmarks.report import PartFailed, Table, machine
from benchmarks.servers import PrivateInfra
from benchmarks.w1 import RUNS as W1_RUNS
from benchmarks.workload import first_project_events, stream

PARTS = (
    "ingest",
    "kafka",
    "queries",
    "explorer",
    "replay",
    "memory",
    "verify",
    "mlflow",
    "group",
    "sdk",
)


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--scale", type=int, default=10_000, help="events in the workload (S)")
    parser.add_argument(
        "--only", default=",".join(PARTS), help=f"comma-separated: {','.join(PARTS)}"
    )
    parser.add_argument("--repeat", type=int, default=3, help="repeated runs (medians)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--samples", type=int, default=60, help="calls per query row")
    parser.add_argument(
        "--warm-up-s",
        type=float,
        default=bench_queries.WARM_UP_S,
        help="seconds of untimed calls before each query row's timed ones",
    )
    parser.add_argument(
        "--page-loads", type=int, default=15, help="timed page loads per explorer case"
    )
    parser.add_argument(
        "--w1-runs",
        type=int,
        default=W1_RUNS,
        help=f"runs in the mlflow part's W1 (default {W1_RUNS}: W1 itself; fewer for a smoke run)",
    )
    parser.add_argument("--neo4j-heap", default="1g", help="the private Neo4j's heap")
    parser.add_argument(
        "--neo4j-pagecache",
        default="1g",
        help="the private Neo4j's page cache (a 10M graph: 16g with --neo4j-heap 4g)",
    )
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help="directory for the JSON, Markdown and PNG files"
        " (default: benchmarks/results/s<scale>, e.g. s100000)",
    )
    args = parser.parse_args()
    for name in ("scale", "repeat", "w1_runs"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.warm_up_s < 0:
        parser.error("--warm-up-s must not be negative")
    unknown = set(args.only.split(",")) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")
    return args


def _loads_by_limit(parts: set[str]) -> bool:
    """Whether the queries and explorer need the projected workload written without its log:
    the ingest and memory parts leave the whole workload graph behind, checked."""
    return bool(parts & {"queries", "explorer"}) and not parts & {"ingest", "memory"}


def _reference(
    infra: PrivateInfra, topic: str, reference: Reference | None
) -> tuple[Callable[[], Reference], bool]:
    """What the graph rebuilt from `topic` must equal: `reference` when a part before made it
    (the ingest part, the memory part), else the fold of the log, made in a thread beside the
    part's own process (the longest step at 10M: folded before it, a 10M run of the memory or
    the replay part would not fit a three-hour session); and whether it is folded beside."""
    if reference is None:
        return log_reference_beside(infra, topic), True
    ready = reference
    return (lambda: ready), False


def _in_infra(
    args: argparse.Namespace, parts: set[str], data: Prepared, home: Path, tables: list[Table]
) -> None:
    """The parts that need Kafka and Neo4j, each table appended to `tables` as it is done."""
    with PrivateInfra(home, args.neo4j_heap, args.neo4j_pagecache) as infra:
        print(f"private Kafka {infra.bootstrap}, Neo4j {infra.settings.neo4j_uri}", flush=True)
        live, topic, reference = 0.0, "", None
        if "ingest" in parts:
            result = bench_ingest.run(infra, data, args.repeat)
            tables += result.tables
            live, topic, reference = result.live_events_per_s, result.topic, result.reference
        if not topic and parts & {"kafka", "replay", "memory", "verify"}:
            topic = fill_topic(infra, data, "backlog")
        if "kafka" in parts:
            tables.append(bench_kafka.run(infra, data, topic, args.repeat))
        if "memory" in parts:
            print("  memory", flush=True)
            folding, beside = _reference(infra, topic, reference)
            tables.append(bench_replay.run_memory(infra, data, topic, folding, beside))
            reference = folding()
        if _loads_by_limit(parts):
            from benchmarks.pipeline import limit

            limit(infra, data)
        if parts & {"queries", "explorer"}:
            print(f"  Neo4j settled after the writes in {infra.settle():.0f} s", flush=True)
        if "queries" in parts:
            print("  queries", flush=True)
            tables.append(
                bench_queries.run(
                    infra.driver, *data.roots, args.samples * args.repeat, args.warm_up_s
                )
            )
        if "explorer" in parts:
            print("  explorer (Chromium)", flush=True)
            tables.append(bench_explorer.run(infra, *data.roots, args.page_loads))
        if "replay" in parts:
            print("  replay", flush=True)
            folding, beside = _reference(infra, topic, reference)
            tables.append(
                bench_replay.run_replay(infra, data, topic, folding, live, args.repeat, beside)
            )
        if "verify" in parts:
            print("  verify", flush=True)
            # The graph is the fold of the topic's log after replay, the backlog or ingest
            # (the explorer part adds a story of its own beside it).
            folded = "replay" in parts or (parts & {"ingest", "memory"} and "explorer" not in parts)
            tables.append(bench_replay.run_verify(infra, data, topic, bool(folded)))
        if "mlflow" in parts:
            print("  mlflow (W1)", flush=True)
            tables.append(bench_mlflow.run(infra, args.repeat, args.w1_runs))
        if "group" in parts:
            tables.append(bench_group.run(infra, data, args.repeat))


def main() -> None:
    args = _args()
    # A plain `kill` must still stop the private servers (the `with` blocks' exits).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    # So does an interrupt, also when the benchmark was started in the background of a
    # non-interactive shell (which starts it with SIGINT ignored).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    logging.getLogger("kafka").setLevel(logging.CRITICAL)  # start-up probes log refusals
    parts = set(args.only.split(","))
    report.RESULTS = args.results or report.RESULTS / f"s{args.scale}"
    started = time.perf_counter()
    print(f"workload: {args.scale:,} events, seed {args.seed}", flush=True)
    # One pass, no list of every event; the bare events folded only for the ingest part, the
    # events projected only for the parts that write projected changes without the log (the
    # queries and the explorer read the graph the ingest or memory part left when either ran).
    project = "ingest" in parts or _loads_by_limit(parts)
    data = Prepared.of(stream(args.scale, args.seed), fold="ingest" in parts, project=project)
    if "queries" in parts and not data.roots[0]:
        sys.exit(
            f"queries: {args.scale:,} events hold no whole project (no shipped model to trace);"
            f" at seed {args.seed} the queries need --scale {first_project_events(args.seed)}"
            " or more"
        )
    tables: list[Table] = []
    failed = ""
    try:
        if parts - {"sdk"}:
            home = Path(tempfile.mkdtemp(prefix="provgraph-bench-"))
            try:
                _in_infra(args, parts, data, home, tables)
            finally:
                shutil.rmtree(home, ignore_errors=True)
        if "sdk" in parts:
            print("  sdk", flush=True)
            tables.append(bench_sdk.run(20_000, args.repeat))
    except PartFailed as e:
        tables.append(e.table)
        failed = str(e)
        raise
    except BaseException as e:
        failed = f"{type(e).__name__}: {e}"
        raise
    finally:
        # What the parts measured before one failed is written too, marked.
        _save(args, tables, started, failed)


def _save(args: argparse.Namespace, tables: list[Table], started: float, failed: str) -> None:
    meta = {
        "scale": args.scale,
        "repeat": args.repeat,
        "seed": args.seed,
        "machine": machine(),
        "neo4j_memory": {"heap": args.neo4j_heap, "pagecache": args.neo4j_pagecache},
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "wall_s": round(time.perf_counter() - started, 1),
    }
    if failed:
        meta["failed"] = failed
    for table in tables:
        table.save(meta)
        print("\n" + table.render(), flush=True)
    if tables:
        print(f"\nresults in {report.RESULTS} ({meta['wall_s']} s)", flush=True)
    if failed:
        print(f"\nFAILED: {failed}" + (" (the tables above were written)" if tables else ""))


if __name__ == "__main__":
    main()
