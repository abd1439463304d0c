"""`provgraph infra up|down|status|logs|env` and `provgraph env`: the launcher, and what goes
into its servers."""

from __future__ import annotations

import argparse
from contextlib import closing

from provgraph.authz.admin import bootstrap_admin_token
from provgraph.cli.errors import CliError
from provgraph.core.eventlog import open_event_log
from provgraph.core.settings import KafkaSettings, Neo4jSettings
from provgraph.infra.launcher import Launcher
from provgraph.infra.process import tail
from provgraph.infra.settings import InfraSettings
from provgraph.ingest.projector.constraints import apply_schema

SubParsers = argparse._SubParsersAction


def register(sub: SubParsers[argparse.ArgumentParser]) -> None:
    infra = sub.add_parser("infra", help="run Kafka and Neo4j locally (no Docker needed)")
    actions = infra.add_subparsers(dest="action", required=True)
    up = actions.add_parser("up", help="fetch (once), start and wait for Kafka and Neo4j")
    up.add_argument(
        "--brokers",
        type=int,
        default=None,
        help="Kafka as a KRaft quorum of N broker-controllers on consecutive ports "
        "(PROVGRAPH_KAFKA_BROKERS; default: as the data was formatted, else 1)",
    )
    up.set_defaults(func=_up)
    down = actions.add_parser("down", help="stop what `up` started (data is kept)")
    down.add_argument("--wipe", action="store_true", help="also delete their data")
    down.set_defaults(func=_down)
    actions.add_parser("status", help="what runs, on which ports, with which pids").set_defaults(
        func=_status
    )
    logs = actions.add_parser("logs", help="print the tail of the servers' logs")
    logs.add_argument(
        "server", nargs="?", help="one server only: kafka (every broker), kafka-2, neo4j"
    )
    logs.add_argument("-n", "--lines", type=int, default=40, help="lines per log (default 40)")
    logs.set_defaults(func=_logs)
    env_help = 'print the connection settings as `export` lines: eval "$(provgraph env)"'
    actions.add_parser("env", help=env_help).set_defaults(func=_env)
    sub.add_parser("env", help=env_help).set_defaults(func=_env)


def _up(args: argparse.Namespace) -> int:
    overrides = {} if args.brokers is None else {"kafka_brokers": args.brokers}
    launcher = Launcher(InfraSettings(**overrides))
    launcher.up()
    _apply_graph_schema(launcher)
    _bootstrap_admin_token(launcher)
    launcher.write_env_file()  # again, now with the admin token as PROVGRAPH_TOKEN
    return 0


def _apply_graph_schema(launcher: Launcher) -> None:
    s = launcher.settings
    neo4j = Neo4jSettings(
        neo4j_uri=s.neo4j_uri, neo4j_user=s.neo4j_user, neo4j_password=launcher.neo4j.password()
    )
    with neo4j.neo4j_driver() as db:
        count = apply_schema(db)
    print(f"neo4j: {count} constraints and indexes in place")


def _bootstrap_admin_token(launcher: Launcher) -> None:
    """Issue the global admin token once (an event in the log, the text in a 0600 file)."""
    path = launcher.settings.admin_token_file
    cluster = launcher.cluster
    kafka = KafkaSettings(
        kafka_bootstrap=cluster.bootstrap,
        topic_replication=cluster.replication,
        topic_min_insync_replicas=cluster.min_insync,
    )
    with closing(open_event_log(kafka, client_id="provgraph-infra")) as log:
        token = bootstrap_admin_token(path, log)
    if token is not None:
        print(f"bootstrap admin token written to {path} (mode 0600); see docs/security.md")
    else:
        print(f"admin token: {path}")


def _down(args: argparse.Namespace) -> int:
    Launcher().down(wipe=args.wipe)
    return 0


def _status(args: argparse.Namespace) -> int:
    for st in Launcher().status():
        state = "ready" if st.ready else ("starting or unhealthy" if st.pid else "stopped")
        ports = ", ".join(f"{role} {port}" for role, port in st.ports.items())
        print(f"{st.name:<10} {state:<22} pid {st.pid or '-':<8} {ports}")
    return 0


def _logs(args: argparse.Namespace) -> int:
    for name, paths in Launcher().log_paths().items():
        if args.server in (None, name) or name.startswith(f"{args.server}-"):
            for path in paths:
                print(f"==> {path} <==\n{tail(path, args.lines)}\n")
    return 0


def _env(args: argparse.Namespace) -> int:
    """The connection file as it is (`export` lines), so that `eval` can load it."""
    path = Launcher().settings.env_file
    if not path.exists():
        raise CliError(f"no connection file {path}: run `make up` (or `provgraph infra up`)")
    print(path.read_text(), end="")
    return 0
