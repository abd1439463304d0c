"""`provgraph services up|down|status`: provgraph's own processes in the background."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping
from typing import Any

from provgraph.infra.apps import AppEntry, Apps, AppSpec, Probe, http_app, module_app
from provgraph.infra.settings import InfraSettings
from provgraph.ingest.settings import IngestSettings

SubParsers = argparse._SubParsersAction
PROJECTOR = "projector"


def register(sub: SubParsers[argparse.ArgumentParser]) -> None:
    services = sub.add_parser("services", help="run provgraph's ingest, projector and query")
    actions = services.add_subparsers(dest="action", required=True)
    up = actions.add_parser("up", help="start those not running")
    up.add_argument(
        "--projectors",
        type=int,
        default=None,
        help="N projector processes in one consumer group (PROVGRAPH_PROJECTORS; default 1)",
    )
    up.set_defaults(func=_up)
    actions.add_parser("down", help="stop those `up` started").set_defaults(func=_down)
    actions.add_parser(
        "status", help="pids, ports, health (a projector that is not consuming: degraded)"
    ).set_defaults(func=_status)


def app_specs(settings: InfraSettings, projectors: Iterable[str] = ()) -> list[AppSpec]:
    """provgraph's own processes, in start order: the two services' HTTP apps, and this
    command line's own projectors (``python -m provgraph.cli projector``), `settings.projectors`
    of them in one consumer group (named by `projector_names`), and those `projectors` too."""
    from provgraph import cli

    names = projector_names(settings.projectors)
    names += [name for name in projectors if name not in names]
    return [
        http_app("ingest", _ingest_entry, settings, settings.ingest_port),
        *(module_app(name, cli, "projector") for name in names),
        http_app("query", _query_entry, settings, settings.query_port, serves_ui=True),
    ]


def projector_names(count: int) -> list[str]:
    """`projector`, then `projector-2` ... `projector-<count>` (one name each: its pid file,
    log and status line)."""
    return [PROJECTOR] + [f"{PROJECTOR}-{n}" for n in range(2, count + 1)]


def is_projector(name: str) -> bool:
    return name == PROJECTOR or name.startswith(f"{PROJECTOR}-")


# The services' process entries, imported only to start them (they load FastAPI, GraphQL...).
def _ingest_entry() -> AppEntry:
    from provgraph.ingest import app

    return app


def _query_entry() -> AppEntry:
    from provgraph.query import app

    return app


def provgraph_apps(settings: InfraSettings | None = None) -> Apps:
    """The launcher of provgraph's own processes (`settings`: the environment's by default),
    with every projector still running from an earlier `up` with more of them, so that
    `status` and `down` cover them all."""
    settings = settings or InfraSettings()
    configured = Apps(settings, app_specs(settings))
    named = {spec.name for spec in configured.specs}
    more = [n for n in configured.recorded_names() if is_projector(n) and n not in named]
    if not more:
        return configured
    every = Apps(settings, app_specs(settings, more))
    alive = [s for s in every.specs if s.name in named or every.process(s).pid() is not None]
    return Apps(settings, alive)


def _up(args: argparse.Namespace) -> int:
    overrides = {} if args.projectors is None else {"projectors": args.projectors}
    apps = provgraph_apps(InfraSettings(**overrides))
    names = apps.up()
    for spec in apps.specs:
        if spec.name in names:
            where = f"http://{apps.settings.host}:{spec.port}" if spec.port else "(no port)"
            print(f"{spec.name}: running {where}, log {apps.process(spec).log_file}")
    return 0


def _down(args: argparse.Namespace) -> int:
    stopped = provgraph_apps().down()
    print(f"stopped: {', '.join(stopped) if stopped else 'none was running'}")
    return 0


def _status(args: argparse.Namespace) -> int:
    apps = provgraph_apps()
    probe = projector_probe(apps.env())
    probes = {spec.name: probe for spec in apps.specs if is_projector(spec.name)}
    for row in apps.report(probes):
        spec = row.spec
        line = f"{spec.name:<10} {row.state:<10} pid {row.pid or '-':<8} port {spec.port or '-'}"
        print(f"{line:<45} {row.reason}" if row.reason else line)
    return 0


# What the projector's health check needs from the environment the projector runs with.
_PROBE_FIELDS = ("kafka_bootstrap", "events_topic", "projector_group", "projector_stalled_after_s")


def projector_probe(env: Mapping[str, str]) -> Probe:
    """Is the projector consuming (`provgraph.ingest.projector.progress`), judged with the
    settings of `env`: the environment `services up` gave it, not necessarily this shell's."""
    from provgraph.ingest.projector.progress import projector_health

    given: dict[str, Any] = {name: env.get(f"PROVGRAPH_{name.upper()}") for name in _PROBE_FIELDS}
    settings = IngestSettings(**{name: v for name, v in given.items() if v is not None})
    return lambda pid, started_at: projector_health(settings, pid, started_at)
