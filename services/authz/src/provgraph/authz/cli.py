"""`provgraph token create|revoke`, `provgraph grant`, `provgraph revoke`, `provgraph policy set`.

Each command appends its event to the Kafka log (connection from PROVGRAPH_* variables, as
`.provgraph/env` sets them); the projector folds it into Neo4j, where the ingest and query
services read it. An event log that cannot be reached or refuses the event is reported by the
command line's main, in one line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from pydantic import ValidationError

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
from provgraph.schemas import InvalidIdError, ProjectPolicySet
from provgraph.schemas.conventions import FACTS, NamedKind
from provgraph.schemas.events.governance import AccessRole
from provgraph.schemas.events.policy import ProjectPolicySetPayload
from provgraph.schemas.events.tokens import GlobalRole
from provgraph.schemas.records import ELEMENTS, RecordKind

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
    put = actions.add_parser(
        "set",
        help="restate the project's policy (log order decides)",
        description="Restate the project's whole policy: what is not stated is not required.",
    )
    put.add_argument("project", help="the project, e.g. llm-pretrain")
    kinds = "; ".join(f"{k.value}: {', '.join(sorted(ELEMENTS[k]))}" for k in RecordKind)
    put.add_argument(
        "--require",
        action="append",
        type=requirement,
        default=[],
        metavar="KIND:ELEM[,ELEM]",
        help=f"elements every record of KIND must hold (repeatable; {kinds})",
    )
    put.add_argument(
        "--require-passed-gates",
        action="store_true",
        help="refuse a run that trains on a dataset version whose quality checks failed or "
        "were never recorded",
    )
    put.add_argument(
        "--require-conclusion",
        action=argparse.BooleanOptionalAction,
        help="refuse run.completed without a conclusion (as --require run:conclusion; "
        "--no-require-conclusion: accept it)",
    )
    put.add_argument(
        "--metric-alias",
        action="append",
        type=pair("ALIAS=CANONICAL"),
        default=[],
        metavar="ALIAS=CANONICAL",
        help="a metric name that means CANONICAL: compare, best and effects read it as "
        "CANONICAL (repeatable; `provgraph lint-metrics` lists candidates)",
    )
    facts = "; ".join(f"{k.value}: {', '.join(FACTS[k])}" for k in NamedKind)
    put.add_argument(
        "--name-rule",
        action="append",
        type=pair("KIND=TEMPLATE"),
        default=[],
        metavar="KIND=TEMPLATE",
        help="how records of KIND are named: text, {fact} placeholders and * for any text "
        f"(repeatable; {facts})",
    )
    put.add_argument(
        "--require-names",
        action="store_true",
        help="refuse a new record whose name breaks its naming rule (422 name_breaks_rule)",
    )
    put.add_argument(
        "--storage-root",
        action="append",
        default=[],
        metavar="URI",
        help="a URI prefix outputs belong under (repeatable)",
    )
    put.add_argument(
        "--require-places",
        action="store_true",
        help="refuse an output outside the storage roots or at a personal path (422 "
        "place_refused), or at a URI a run of another experiment wrote (409 place_taken)",
    )
    put.add_argument("--reason", help="why, kept with the policy")
    put.set_defaults(func=_policy_set)


def pair(shape: str) -> Callable[[str], tuple[str, str]]:
    """An argument type for ``LEFT=RIGHT`` (both non-empty), named `shape` in its error."""

    def parse(text: str) -> tuple[str, str]:
        left, sep, right = text.partition("=")
        if not sep or not left.strip() or not right.strip():
            raise argparse.ArgumentTypeError(f"{text!r}: expected {shape}")
        return left.strip(), right.strip()

    return parse


def requirement(text: str) -> tuple[RecordKind, tuple[str, ...]]:
    """``KIND:ELEM[,ELEM]`` as (kind, elements), each checked against `records.ELEMENTS`."""
    kind_text, _, names = text.partition(":")
    kinds = {k.value: k for k in RecordKind}
    if kind_text not in kinds:
        raise argparse.ArgumentTypeError(
            f"{kind_text!r} is not a kind of record (known: {', '.join(kinds)})"
        )
    kind = kinds[kind_text]
    elements = tuple(n.strip() for n in names.split(",") if n.strip())
    unknown = [n for n in elements if n not in ELEMENTS[kind]]
    if not elements or unknown:
        what = f"{', '.join(map(repr, unknown))} is not" if unknown else "no element is"
        raise argparse.ArgumentTypeError(
            f"{what} an element of a {kind.value} record "
            f"(known: {', '.join(sorted(ELEMENTS[kind]))})"
        )
    return kind, elements


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
    try:
        event = policy_event(args)
    except (ValueError, InvalidIdError) as exc:
        return _fail(exc)
    append_to_log([event], KafkaSettings())
    print(f"project {args.project}: {describe(event.payload)}")
    return 0


def policy_event(args: argparse.Namespace) -> ProjectPolicySet:
    """The ``project.policy.set`` event `provgraph policy set` appends; `ValueError` when no
    rule is stated (a policy restates every rule: say explicitly that nothing is required)."""
    stated = [args.require, args.require_passed_gates, args.metric_alias, args.name_rule]
    stated += [args.require_names, args.storage_root, args.require_places]
    if not any(stated) and args.require_conclusion is None:
        raise ValueError(
            "state the policy: --require KIND:ELEM[,ELEM], --require-passed-gates, "
            "--require-conclusion, --metric-alias, --name-rule, --storage-root (or "
            "--no-require-conclusion: require nothing)"
        )
    kinds = {k.value for k in NamedKind}
    unknown = [kind for kind, _ in args.name_rule if kind not in kinds]
    if unknown:
        raise ValueError(
            f"--name-rule {unknown[0]!r}: not a kind that is named (known: {', '.join(kinds)})"
        )
    required: dict[RecordKind, list[str]] = {}
    for kind, elements in args.require:
        required.setdefault(kind, []).extend(elements)
    try:
        return _policy_set_event(args, required)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(map(str, e['loc']))}: {e['msg'].removeprefix('Value error, ')}"
            for e in exc.errors()
        ]
        raise ValueError("; ".join(problems)) from None


def _policy_set_event(
    args: argparse.Namespace, required: dict[RecordKind, list[str]]
) -> ProjectPolicySet:
    return policy_set(
        args.project,
        default_actor(),
        require_conclusion=bool(args.require_conclusion),
        required=required,
        require_passed_gates=args.require_passed_gates,
        reason=args.reason,
        metric_aliases=dict(args.metric_alias),
        names=dict(args.name_rule),
        require_names=args.require_names,
        storage_roots=args.storage_root,
        require_places=args.require_places,
    )


def describe(payload: ProjectPolicySetPayload) -> str:
    """A policy in one line: what each kind requires, and the gates rule."""
    parts = [
        f"{kind.value} requires {', '.join(payload.required.of(kind))}"
        for kind in RecordKind
        if payload.required.of(kind)
    ]
    if payload.require_passed_gates:
        parts.append("runs train only on dataset versions whose quality checks passed")
    if payload.metric_aliases:
        aliases = ", ".join(f"{a} = {c}" for a, c in payload.metric_aliases.items())
        parts.append(f"metric aliases {aliases}")
    for kind, template in payload.names.stated().items():
        parts.append(f"{kind} names follow {template!r}")
    if payload.require_names:
        parts.append("names that break their rule are refused")
    if payload.storage_roots:
        parts.append(f"outputs under {', '.join(payload.storage_roots)}")
    if payload.require_places:
        parts.append("outputs out of place or at another experiment's URI are refused")
    return "; ".join(parts) or "requires nothing"


def _fail(exc: Exception) -> int:
    print(f"provgraph: error: {exc}", file=sys.stderr)
    return 2
