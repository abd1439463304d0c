"""`provgraph token create|revoke`, `provgraph grant`, `provgraph revoke`, `provgraph policy set`.

Each command appends its event to the Kafka log (connection from PROVGRAPH_* variables, as
`.provgraph/env` sets them); the projector folds it into Neo4j, where the ingest and query
services read it. An event log that cannot be reached or refuses the event is reported by the
command line's main, in one line.
"""

from __future__ import annotations

import argparse
import sys

from provgraph.authz.admin import (
    access_event,
    append_to_log,
    policy_set,
    token_issued,
    token_revoked,
)
from provgraph.authz.tokens import new_token, principal_name
from provgraph.client.config import default_actor
from provgraph.core.settings import KafkaSettings
from provgraph.schemas import InvalidIdError
from provgraph.schemas.events.governance import AccessRole
from provgraph.schemas.events.tokens import GlobalRole

SubParsers = argparse._SubParsersAction
_PROJECT_ROLES = [r.value for r in AccessRole if r is not AccessRole.AUDITOR]


def register(sub: SubParsers[argparse.ArgumentParser]) -> None:
    token = sub.add_parser("token", help="API tokens: create (printed once) or revoke")
    actions = token.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="issue a token for a principal and print it")
    create.add_argument("--name", required=True, help="user:alice, service:ci (bare = user:)")
    roles = create.add_mutually_exclusive_group()
    roles.add_argument("--auditor", action="store_true", help="global auditor (reads all, Cypher)")
    roles.add_argument("--admin", action="store_true", help="global admin (everything)")
    create.set_defaults(func=_create)
    revoke = actions.add_parser("revoke", help="revoke the principal's current token")
    revoke.add_argument("--name", required=True)
    revoke.add_argument("--reason")
    revoke.set_defaults(func=_revoke_token)
    for verb, helptext in (("grant", "give a role in a project"), ("revoke", "take it back")):
        parser = sub.add_parser(verb, help=helptext)
        parser.add_argument("--principal", required=True, help="user:alice (bare = user:)")
        parser.add_argument("--project", required=True)
        parser.add_argument("--role", required=True, choices=_PROJECT_ROLES)
        parser.set_defaults(func=_access, grant=verb == "grant")
    _register_policy(sub)


def _register_policy(sub: SubParsers[argparse.ArgumentParser]) -> None:
    policy = sub.add_parser("policy", help="a project's policy (set by its admins, as an event)")
    actions = policy.add_subparsers(dest="action", required=True)
    put = actions.add_parser("set", help="restate the project's policy (log order decides)")
    put.add_argument("project", help="the project, e.g. llm-pretrain")
    put.add_argument(
        "--require-conclusion",
        action=argparse.BooleanOptionalAction,
        required=True,
        help="refuse run.completed without a conclusion (--no-require-conclusion: accept it)",
    )
    put.add_argument("--reason", help="why, kept with the policy")
    put.set_defaults(func=_policy_set)


def _create(args: argparse.Namespace) -> int:
    roles = [GlobalRole.AUDITOR] if args.auditor else [GlobalRole.ADMIN] if args.admin else []
    token = new_token()
    try:
        event = token_issued(principal_name(args.name), token, roles, default_actor())
    except (ValueError, InvalidIdError) as exc:
        return _fail(exc)
    append_to_log([event], KafkaSettings())
    print(token)
    print(f"token of {event.payload.name} (shown once; only its hash is kept)", file=sys.stderr)
    return 0


def _revoke_token(args: argparse.Namespace) -> int:
    try:
        event = token_revoked(principal_name(args.name), default_actor(), args.reason)
    except (ValueError, InvalidIdError) as exc:
        return _fail(exc)
    append_to_log([event], KafkaSettings())
    print(f"revoked the token of {event.payload.name}", file=sys.stderr)
    return 0


def _access(args: argparse.Namespace) -> int:
    principal = principal_name(args.principal)
    role = AccessRole(args.role)
    try:
        event = access_event(principal, args.project, role, default_actor(), grant=args.grant)
    except (ValueError, InvalidIdError) as exc:
        return _fail(exc)
    append_to_log([event], KafkaSettings())
    done = "granted" if args.grant else "revoked"
    print(f"{done} {role.value} on {args.project} for {principal}", file=sys.stderr)
    return 0


def _policy_set(args: argparse.Namespace) -> int:
    required = bool(args.require_conclusion)
    try:
        event = policy_set(
            args.project, default_actor(), require_conclusion=required, reason=args.reason
        )
    except (ValueError, InvalidIdError) as exc:
        return _fail(exc)
    append_to_log([event], KafkaSettings())
    rule = "requires" if required else "does not require"
    print(f"project {args.project} {rule} a conclusion on run.completed", file=sys.stderr)
    return 0


def _fail(exc: Exception) -> int:
    print(f"provgraph: error: {exc}", file=sys.stderr)
    return 2
