"""The `provgraph` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from provgraph import __version__


def _infra_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    infra = sub.add_parser("infra", help="run Kafka and Neo4j locally (no Docker needed)")
    actions = infra.add_subparsers(dest="action", required=True)
    actions.add_parser("up", help="fetch (once), start and wait for Kafka and Neo4j")
    down = actions.add_parser("down", help="stop what `up` started")
    down.add_argument("--wipe", action="store_true", help="also delete their data")
    actions.add_parser("status", help="what runs, on which ports, with which pids")
    logs = actions.add_parser("logs", help="print the tail of the servers' logs")
    logs.add_argument("server", nargs="?", choices=["kafka", "neo4j"], help="one server only")
    logs.add_argument("-n", "--lines", type=int, default=40, help="lines per log (default 40)")
    actions.add_parser("env", help="print the connection file's path and content")


def _run_infra(args: argparse.Namespace) -> int:
    from provgraph.infra.launcher import Launcher
    from provgraph.infra.process import tail

    launcher = Launcher()
    if args.action == "up":
        launcher.up()
    elif args.action == "down":
        launcher.down(wipe=args.wipe)
    elif args.action == "status":
        for st in launcher.status():
            state = "ready" if st.ready else ("starting or unhealthy" if st.pid else "stopped")
            ports = ", ".join(f"{role} {port}" for role, port in st.ports.items())
            print(f"{st.name:<8} {state:<22} pid {st.pid or '-':<8} {ports}")
    elif args.action == "logs":
        for name, paths in launcher.log_paths().items():
            if args.server in (None, name):
                for path in paths:
                    print(f"==> {path} <==\n{tail(path, args.lines)}\n")
    elif args.action == "env":
        path = launcher.settings.env_file
        print(f"# {path}\n{path.read_text() if path.exists() else '(not written yet: run up)'}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="provgraph", description=__doc__)
    parser.add_argument("--version", action="version", version=f"provgraph {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _infra_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from provgraph.infra.errors import InfraError

    try:
        if args.command == "infra":
            return _run_infra(args)
    except InfraError as exc:
        print(f"provgraph: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 2


if __name__ == "__main__":
    sys.exit(main())
