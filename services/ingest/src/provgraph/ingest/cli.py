"""`provgraph projector | replay | verify | graph-hash | deadletters`: the command line of the
projector (`projector.run`) and of the audit tools (`tools/`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from provgraph.core.commands import command
from provgraph.ingest.settings import IngestSettings
from provgraph.ingest.tools import deadletter_cli


def _settings(args: argparse.Namespace) -> IngestSettings:
    overrides: dict[str, Any] = {}
    if getattr(args, "topic", None):
        overrides["events_topic"] = args.topic
    return IngestSettings(**overrides)


def _projector(args: argparse.Namespace) -> int:
    from provgraph.ingest.projector.run import run_projector

    stats = run_projector(_settings(args), until_idle=args.until_idle, timeout_s=args.timeout)
    print(f"projector: {stats}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    from provgraph.ingest.projector.constraints import apply_schema
    from provgraph.ingest.projector.writer import GraphWriter
    from provgraph.ingest.tools.replay import Progress, ReplayError, replay, replay_start

    settings = _settings(args)
    with settings.neo4j_driver() as driver:
        apply_schema(driver, settings.neo4j_database)
        writer = GraphWriter(driver, settings.neo4j_database)
        try:
            start = replay_start(settings, writer, resume=args.resume, require_empty=not args.force)
        except ReplayError as exc:
            hint = "" if args.resume or "--resume" in str(exc) else " (use --force to fold into it)"
            print(f"replay: {exc}{hint}", file=sys.stderr)
            return 2
        if start.done:
            print(f"replay: resuming at {start.done} of {start.total} records", file=sys.stderr)
        progress = Progress(start.total, done=start.done)
        records, applied, poison = replay(settings, writer, progress.advance, start=start)
    print(
        f"\nreplay: {records} records, {applied} events applied, {poison} dead-lettered "
        f"records skipped in {progress.elapsed():.1f}s"
    )
    return 0


def _verify(args: argparse.Namespace) -> int:
    from provgraph.ingest.tools.log_reader import log_size
    from provgraph.ingest.tools.replay import Progress
    from provgraph.ingest.tools.verify import verify

    settings = _settings(args)
    with settings.neo4j_driver() as driver:
        # A refused login or an unreachable Neo4j is said before the fold, which can take hours.
        driver.verify_connectivity()
        progress = Progress(log_size(settings))

        def folded() -> None:
            print(f"\nverify: log folded in {progress.elapsed():.1f}s; comparing", file=sys.stderr)

        differences = verify(
            settings, driver, args.project, progress=progress.advance, folded=folded
        )
    for line in differences:
        print(line)
    print(f"verify: {len(differences) or 'no'} differences", file=sys.stderr)
    return 1 if differences else 0


def _graph_hash(args: argparse.Namespace) -> int:
    from provgraph.ingest.tools.verify import graph_hash

    settings = _settings(args)
    with settings.neo4j_driver() as driver:
        print(graph_hash(driver, args.project, settings.neo4j_database))
    return 0


def register(sub: Any) -> None:
    """Add the projector and audit sub-commands to the `provgraph` command line."""
    p = command(sub, "projector", _projector, "fold the event log into Neo4j (a consumer group)")
    p.add_argument("--topic", help="event log topic (default: PROVGRAPH_EVENTS_TOPIC)")
    p.add_argument("--until-idle", action="store_true", help="exit once caught up")
    p.add_argument("--timeout", type=float, default=600.0, help="--until-idle limit, seconds")

    p = command(sub, "replay", _replay, "rebuild the graph from offset 0 into an empty database")
    p.add_argument("--topic", help="event log topic")
    again = p.add_mutually_exclusive_group()
    again.add_argument("--force", action="store_true", help="fold into a non-empty database")
    again.add_argument(
        "--resume", action="store_true", help="continue a stopped replay after its last batch"
    )

    p = command(sub, "verify", _verify, "fold the log and compare it with Neo4j, part by part")
    p.add_argument("--topic", help="event log topic")
    p.add_argument("--project", help="compare only this project's part of the graph")

    p = command(sub, "graph-hash", _graph_hash, "print a canonical hash of the graph")
    p.add_argument("--project", help="hash only this project's part of the graph")

    deadletter_cli.register(sub)
