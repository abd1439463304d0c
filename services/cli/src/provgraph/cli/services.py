"""`provgraph services up|down|status`: provgraph's own processes in the background."""

from __future__ import annotations

import argparse

from provgraph.infra.apps import Apps

SubParsers = argparse._SubParsersAction


def register(sub: SubParsers[argparse.ArgumentParser]) -> None:
    services = sub.add_parser("services", help="run provgraph's ingest, projector and query")
    actions = services.add_subparsers(dest="action", required=True)
    actions.add_parser("up", help="start those not running").set_defaults(func=_up)
    actions.add_parser("down", help="stop those `up` started").set_defaults(func=_down)
    actions.add_parser("status", help="pids, ports, health").set_defaults(func=_status)


def _up(args: argparse.Namespace) -> int:
    apps = Apps()
    names = apps.up()
    for spec in apps.specs:
        if spec.name in names:
            where = f"http://{apps.settings.host}:{spec.port}" if spec.port else "(no port)"
            print(f"{spec.name}: running {where}, log {apps.process(spec).log_file}")
    return 0


def _down(args: argparse.Namespace) -> int:
    stopped = Apps().down()
    print(f"stopped: {', '.join(stopped) if stopped else 'none was running'}")
    return 0


def _status(args: argparse.Namespace) -> int:
    for spec, pid, healthy in Apps().status():
        state = "healthy" if healthy else ("unhealthy" if pid else "stopped")
        print(f"{spec.name:<10} {state:<10} pid {pid or '-':<8} port {spec.port or '-'}")
    return 0
