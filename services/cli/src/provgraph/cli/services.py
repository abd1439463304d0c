"""`provgraph services up|down|status`: provgraph's own processes in the background."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from provgraph.infra.apps import Apps, Probe
from provgraph.ingest.settings import IngestSettings

SubParsers = argparse._SubParsersAction


def register(sub: SubParsers[argparse.ArgumentParser]) -> None:
    services = sub.add_parser("services", help="run provgraph's ingest, projector and query")
    actions = services.add_subparsers(dest="action", required=True)
    actions.add_parser("up", help="start those not running").set_defaults(func=_up)
    actions.add_parser("down", help="stop those `up` started").set_defaults(func=_down)
    actions.add_parser(
        "status", help="pids, ports, health (a projector that is not consuming: degraded)"
    ).set_defaults(func=_status)


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
    apps = Apps()
    for row in apps.report({"projector": projector_probe(apps.env())}):
        spec = row.spec
        line = f"{spec.name:<10} {row.state:<10} pid {row.pid or '-':<8} port {spec.port or '-'}"
        print(f"{line:<45} {row.reason}" if row.reason else line)
    return 0


# What the projector's health check needs from the environment the projector runs with.
_PROBE_FIELDS = ("kafka_bootstrap", "events_topic", "projector_group", "projector_stalled_after_s")


def projector_probe(env: Mapping[str, str]) -> Probe:
    """Is the projector consuming (`provgraph.ingest.progress`), judged with the settings of
    `env`: the environment `services up` gave it, not necessarily this shell's."""
    from provgraph.ingest.progress import projector_health

    given: dict[str, Any] = {name: env.get(f"PROVGRAPH_{name.upper()}") for name in _PROBE_FIELDS}
    settings = IngestSettings(**{name: v for name, v in given.items() if v is not None})
    return lambda pid, started_at: projector_health(settings, pid, started_at)
