"""`provgraph demo`: load the demo lineage story and show one question answered."""

from __future__ import annotations

import argparse
import json
import os
import time
import urllib.error
import urllib.request
from pathlib import Path

from neo4j import RoutingControl

from provgraph.authz.admin import append_to_log
from provgraph.cli.demo_story import DEPLOYED_MODEL, PROJECT, demo_events
from provgraph.cli.services import provgraph_apps
from provgraph.infra.process import answers_ok
from provgraph.infra.settings import InfraSettings
from provgraph.ingest.settings import IngestSettings
from provgraph.schemas import Event

SubParsers = argparse._SubParsersAction

EXAMPLE_QUESTION = "Which dataset versions is the live deployment's model built on?"
EXAMPLE_CYPHER = (
    "MATCH (:Deployment {id: $deployment})-[:SERVES]->(mv:ModelVersion)\n"
    "MATCH (mv)-[*1..8]->(dv:DatasetVersion)\n"
    "RETURN DISTINCT dv.id AS dataset_version ORDER BY dataset_version"
)


def register(sub: SubParsers[argparse.ArgumentParser]) -> None:
    demo = sub.add_parser("demo", help="load the demo lineage story and query it")
    demo.add_argument("--wait", type=float, default=60.0, help="seconds to wait for projection")
    demo.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:

    infra = InfraSettings()
    settings = IngestSettings()
    token = _token(infra)
    events = demo_events()
    marker = infra.state_dir / "demo.loaded"
    if _loaded(marker) == len(events):
        print(f"demo story already loaded ({len(events)} events, project {PROJECT!r})")
    else:
        how = _send(events, infra.ingest_url, settings, token, args.wait)
        marker.write_text(f"{len(events)} events via {how}\n")
        print(f"demo story loaded: {len(events)} events for project {PROJECT!r} via {how}")
    _print_urls(infra, settings)
    _print_example(settings, args.wait if _projector_runs() else 0.0)
    _print_graphql_example(infra.query_url, token)
    if token is not None:
        print(
            f"\nthe admin token is in {infra.admin_token_file}; `source {infra.env_file}` "
            "exports it as PROVGRAPH_TOKEN, with the connection settings (docs/security.md)"
        )
    return 0


def _loaded(marker: Path) -> int | None:
    """How many events of the story were loaded, when it was; a story that has grown since is
    sent again (its events keep their ids, so the ones already there are not doubled)."""
    try:
        return int(marker.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _token(infra: InfraSettings) -> str | None:
    """PROVGRAPH_TOKEN, else the bootstrap admin token `provgraph infra up` wrote."""
    token = os.environ.get("PROVGRAPH_TOKEN", "").strip()
    path = infra.admin_token_file
    if not token and path.exists():
        token = path.read_text().strip()
    return token or None


def _headers(token: str | None) -> dict[str, str]:
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    return {"Content-Type": "application/json", **auth}


def _projector_runs() -> bool:

    return any(spec.name == "projector" and pid for spec, pid, _ in provgraph_apps().status())


def _send(
    events: list[Event], ingest_url: str, settings: IngestSettings, token: str | None, wait_s: float
) -> str:
    """Through the ingest service when it runs, else straight into the event log topic.

    A fresh bootstrap token works once the projector has folded it: 401s are retried.
    """
    if not answers_ok(f"{ingest_url}/healthz"):
        return _produce(events, settings)
    body = b"[" + b",".join(event.to_json_bytes() for event in events) + b"]"
    deadline = time.monotonic() + wait_s
    while True:
        request = urllib.request.Request(
            f"{ingest_url}/v1/events", data=body, method="POST", headers=_headers(token)
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                if response.status != 202:
                    raise RuntimeError(f"ingest answered {response.status}: {response.read()!r}")
            return "POST /v1/events"
        except urllib.error.HTTPError as exc:
            if exc.code != 401:
                raise RuntimeError(f"ingest answered {exc.code}: {exc.read()!r}") from None
            if time.monotonic() > deadline:
                raise  # no token, or a refused one: the command line says which and the fix
            time.sleep(1.0)


def _produce(events: list[Event], settings: IngestSettings) -> str:

    append_to_log(events, settings)
    return f"Kafka topic {settings.events_topic} (the ingest service is not running)"


def _print_urls(infra: InfraSettings, settings: IngestSettings) -> None:
    print("\nprovgraph is running:")
    print(f"  Kafka (event log)   {infra.kafka_bootstrap}   topic {settings.events_topic}")
    print(
        f"  Neo4j Bolt          {infra.neo4j_uri}   user {infra.neo4j_user}, "
        f"password in {infra.env_file}"
    )
    print(f"  Neo4j Browser       http://{infra.host}:{infra.neo4j_http_port}/browser/")

    for spec, pid, healthy in provgraph_apps(infra).status():
        where = f"http://{infra.host}:{spec.port}" if spec.port else "(a consumer, no port)"
        state = "running" if healthy else ("starting" if pid else "not running")
        print(f"  {spec.name + ' service':<19} {where}   ({state})")


def _print_example(settings: IngestSettings, wait_s: float) -> None:
    print(f"\nexample: {EXAMPLE_QUESTION}\n")
    print("  " + EXAMPLE_CYPHER.replace("\n", "\n  "))
    params = {"deployment": f"deployment:{PROJECT}/chat-api"}
    rows: list[str] = []
    database = settings.neo4j_database
    with settings.neo4j_driver(notifications_min_severity="OFF") as driver:
        deadline = time.monotonic() + wait_s
        while not rows and time.monotonic() < deadline:
            records, _, _ = driver.execute_query(
                EXAMPLE_CYPHER, params, database_=database, routing_=RoutingControl.READ
            )
            rows = [record["dataset_version"] for record in records]
            if not rows:
                time.sleep(1.0)
    if rows:
        print(f"\nanswer ({DEPLOYED_MODEL} is served by chat-api):")
        print(json.dumps(rows, indent=2))
    else:
        print(
            "\nno answer yet: the graph is filled by the projector "
            "(`provgraph services status` shows whether it runs)."
        )


GRAPHQL_QUESTION = "web-corpus v1 turned out bad: which models and live deployments depend on it?"
GRAPHQL_EXAMPLE = '{ impact(id: "dataset:' + PROJECT + '/web-corpus@v1") { node { id type } } }'


def _print_graphql_example(query_url: str, token: str | None) -> None:
    if not answers_ok(f"{query_url}/healthz"):
        return
    body = json.dumps({"query": GRAPHQL_EXAMPLE})
    print(
        f"\nexample over GraphQL ({query_url}/graphql, GraphiQL in a browser): {GRAPHQL_QUESTION}\n"
    )
    print(
        f"  curl -s {query_url}/graphql -H 'Content-Type: application/json' \\\n"
        f'    -H "Authorization: Bearer $(cat .provgraph/admin-token)" \\\n'
        f"    -d '{body}'"
    )
    request = urllib.request.Request(
        f"{query_url}/graphql", data=body.encode(), method="POST", headers=_headers(token)
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        answer = json.loads(response.read())
    print("\nanswer:")
    print(json.dumps(answer, indent=2))
