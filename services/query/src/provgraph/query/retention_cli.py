"""`provgraph retention --project P --keep-after-retire 180d`: what to keep and what may be
deleted, with the reason and the bytes freed; `--emit` the `entity.deleted` events the advice
implies (a dry run: printed as JSON lines), `--emit --apply` sent to the ingest service.

Reads Neo4j directly (PROVGRAPH_NEO4J_URI/USER/PASSWORD) with every project readable
(`connect.command_readers`). Deleting is the ingest service's decision: `--apply` posts the
events with PROVGRAPH_TOKEN to PROVGRAPH_INGEST_URL (`provgraph.client.HttpTransport`), and a
token without the `delete` right on the project is refused there (exit 2). Exit codes: 0
answered (or sent), 2 invalid argument, a setting missing or wrong, or the events refused.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from provgraph.authz.admin import PRODUCER
from provgraph.authz.store import Neo4jPrincipals
from provgraph.authz.tokens import hash_token
from provgraph.client import HttpTransport, RejectedError
from provgraph.client.config import default_actor, env
from provgraph.core.commands import command
from provgraph.query.connect import command_readers
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import Scope
from provgraph.query.recipes.retention import deletion_reason, parse_period, retention_advice
from provgraph.query.recipes.retention_render import render_retention
from provgraph.query.recipes.team_service import parse_instant
from provgraph.query.settings import QuerySettings
from provgraph.query.terminal import add_json_option, print_answer
from provgraph.schemas import MAX_BATCH_EVENTS, EntityDeleted, Event
from provgraph.schemas.events.governance import EntityDeletedPayload

REFUSED = 2
SEND_TIMEOUT_S = 120.0
"""How long one batch of deletes may take to be checked and logged by the ingest service."""


def _actor(settings: QuerySettings) -> str:
    """PROVGRAPH_ACTOR, else the principal of PROVGRAPH_TOKEN, else `user:<login>`."""
    token = env("TOKEN")
    actor = env("ACTOR")
    if actor or not token:
        return actor or default_actor()
    driver = settings.neo4j_driver()
    try:
        principal = Neo4jPrincipals(driver, settings.neo4j_database).lookup(hash_token(token))
    finally:
        driver.close()
    return principal.name if principal is not None else default_actor()


def deletion_events(answer: dict[str, Any], actor: str) -> list[EntityDeleted]:
    """One `entity.deleted` per deletable node of `answer`, its reason naming the rule."""
    reason = deletion_reason(answer["keep_after_retire"], answer["now"])
    return [
        EntityDeleted.create(project=answer["project"], producer=PRODUCER, actor=actor,
                             payload=EntityDeletedPayload(entity=row["id"], reason=reason))
        for row in answer["deletable"]
    ]  # fmt: skip


def _apply(events: list[EntityDeleted]) -> int:
    """Send `events` in batches; the first refused batch stops (every event is of one project
    and needs the one `delete` right, so a refused token is refused on the first batch)."""
    transport = HttpTransport(timeout_s=SEND_TIMEOUT_S)
    sent = 0
    try:
        for start in range(0, len(events), MAX_BATCH_EVENTS):
            batch: list[Event] = list(events[start : start + MAX_BATCH_EVENTS])
            transport.send(batch)
            sent += len(batch)
    except RejectedError as exc:
        told = "nothing was sent" if sent == 0 else f"{sent} of {len(events)} were sent before"
        print(f"provgraph: refused: {exc}; {told}", file=sys.stderr)
        return REFUSED
    print(f"sent {sent} entity.deleted events to {transport.url}; they apply once projected")
    return 0


def _retention(args: argparse.Namespace) -> int:
    if args.apply and not args.emit:
        raise InvalidArgumentError("--apply sends what --emit prints: give both", argument="apply")
    if args.apply and not env("TOKEN"):
        raise InvalidArgumentError("--apply needs PROVGRAPH_TOKEN, a token with the delete right")
    now = parse_instant(args.now, "--now")
    parse_period(args.keep_after_retire)  # refused before anything is read
    with command_readers() as (readers, settings):
        answer = retention_advice(readers.retention, args.project, Scope.everything(), now=now,
                                  period=args.keep_after_retire)  # fmt: skip
        actor = _actor(settings) if args.emit else ""
    if not args.emit:
        print_answer(answer, args.json, render_retention)
        return 0
    events = deletion_events(answer, actor)
    if args.apply:
        return _apply(events)
    for event in events:
        print(event.to_json_bytes().decode())
    print(f"dry run: {len(events)} entity.deleted events, none sent; --apply sends them",
          file=sys.stderr)  # fmt: skip
    return 0


def register(sub: Any) -> None:
    """Add `retention` to the `provgraph` parser."""
    p = command(
        sub,
        "retention",
        _retention,
        "what to keep and what may be deleted, with the reasons and the bytes freed",
    )
    p.add_argument("--project", required=True, help="the project to advise on")
    p.add_argument(
        "--keep-after-retire",
        required=True,
        metavar="PERIOD",
        help="keep a model version this long after it was retired: 180d, 26w, 72h",
    )
    p.add_argument("--now", metavar="ISO", help="the advice's clock, ISO 8601 (default: now)")
    add_json_option(p, "advice")
    p.add_argument(
        "--emit",
        action="store_true",
        help="print the entity.deleted events the advice implies (a dry run)",
    )
    p.add_argument(
        "--apply",
        action="store_true",
        help="with --emit: send them to PROVGRAPH_INGEST_URL with PROVGRAPH_TOKEN",
    )
