"""What the command line says when a command fails for a known reason: one line, and the fix.

A missing or wrong setting (no Neo4j password, a server that does not answer, no token) makes
the drivers raise deep inside a command. `explain` maps the exceptions of the libraries the
commands use, and provgraph's own, to one line naming the setting and how to get it, so that
no command needs its own handling and no driver traceback reaches the terminal.
"""

from __future__ import annotations

import os
import urllib.error
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from kafka.errors import KafkaError
from neo4j.exceptions import (
    AuthError,
    ClientError,
    ConfigurationError,
    ServiceUnavailable,
    SessionExpired,
)
from pydantic import ValidationError

from provgraph.client.errors import RejectedError, TransportError
from provgraph.core.errors import ProvgraphError
from provgraph.core.settings import KafkaSettings, Neo4jSettings
from provgraph.infra.errors import InfraError

USAGE = 2  # the exit code of a setting that is missing or wrong (argparse's, too)
FAILED = 1
ENV_HINT = "run `source .provgraph/env` (written by `make up`)"


class CliError(Exception):
    """A command cannot run as asked; the message says why and what to do (exit code 2)."""


@dataclass(frozen=True)
class Failure:
    """What to print (after `provgraph: `) and the exit code."""

    message: str
    code: int = USAGE


def explain(exc: BaseException) -> Failure | None:
    """The one-line explanation of `exc` (or of an exception it was raised from); None when
    it is not a known failure (a bug: its traceback is worth seeing)."""
    chain = list(_chain(exc))
    for kinds, describe in _EXPLAINERS:
        for link in chain:
            failure = describe(link) if isinstance(link, kinds) else None
            if failure is not None:
                return failure
    return None


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """`exc`, then what it was raised from (`raise ... from`), outermost first. Not what it
    was raised while handling: a bug in an `except` clause must not pass for the error there."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _env(name: str, default: str) -> str:
    return os.environ.get(f"PROVGRAPH_{name.upper()}") or default


def _neo4j_uri() -> str:
    return _env("neo4j_uri", Neo4jSettings.model_fields["neo4j_uri"].default)


def _kafka_bootstrap() -> str:
    return _env("kafka_bootstrap", KafkaSettings.model_fields["kafka_bootstrap"].default)


def _neo4j_auth(exc: BaseException) -> Failure:
    if not os.environ.get("PROVGRAPH_NEO4J_PASSWORD"):
        return Failure(f"no Neo4j password: {ENV_HINT} or set PROVGRAPH_NEO4J_PASSWORD")
    user = _env("neo4j_user", Neo4jSettings.model_fields["neo4j_user"].default)
    return Failure(
        f"Neo4j at {_neo4j_uri()} refused user {user!r} with the password in "
        f"PROVGRAPH_NEO4J_PASSWORD: {ENV_HINT} or set PROVGRAPH_NEO4J_USER and "
        "PROVGRAPH_NEO4J_PASSWORD (the password is in .provgraph/state/neo4j/password)"
    )


def _neo4j_security(exc: BaseException) -> Failure | None:
    """Neo4j's other refusals of a login: a lock-out after wrong passwords, a forbidden user."""
    assert isinstance(exc, ClientError)
    if not (exc.code or "").startswith("Neo.ClientError.Security."):
        return None
    if exc.code == "Neo.ClientError.Security.AuthenticationRateLimit":
        return Failure(
            f"Neo4j at {_neo4j_uri()} locked the user out for a few seconds after too many wrong "
            f"passwords: {ENV_HINT} or set PROVGRAPH_NEO4J_PASSWORD, then try again"
        )
    return Failure(f"Neo4j at {_neo4j_uri()}: {_one_line(exc.message)} (PROVGRAPH_NEO4J_USER)")


def _neo4j_unreachable(exc: BaseException) -> Failure:
    return Failure(
        f"cannot reach Neo4j at {_neo4j_uri()} (PROVGRAPH_NEO4J_URI): start it with "
        f"`make infra-up`, or {ENV_HINT} to use the address it runs on"
    )


def _neo4j_config(exc: BaseException) -> Failure:
    return Failure(f"Neo4j: {_one_line(exc)}: check PROVGRAPH_NEO4J_URI ({_neo4j_uri()})")


def _log_refused(exc: BaseException) -> Failure:
    return Failure(f"the event log refused the event: {_one_line(exc)}", FAILED)


def _kafka(exc: BaseException) -> Failure:
    detail = _one_line(exc)
    if isinstance(exc, KafkaError) and not exc.retriable:
        return Failure(f"Kafka at {_kafka_bootstrap()}: {detail} (PROVGRAPH_KAFKA_BOOTSTRAP)")
    return Failure(
        f"cannot reach Kafka at {_kafka_bootstrap()} (PROVGRAPH_KAFKA_BOOTSTRAP; {detail}): "
        f"start it with `make infra-up`, or {ENV_HINT} to use the address it runs on"
    )


def _invalid_setting(exc: BaseException) -> Failure | None:
    assert isinstance(exc, ValidationError)
    if not exc.title.endswith("Settings"):
        return None  # an event or payload that breaks the contract: not a setting
    first = exc.errors()[0]
    name = "PROVGRAPH_" + "_".join(str(part) for part in first["loc"]).upper()
    return Failure(f"invalid setting {name}: {first['msg']} (got {first['input']!r})")


def _http(exc: BaseException) -> Failure | None:
    assert isinstance(exc, urllib.error.HTTPError)
    where = f"{exc.url} answered {exc.code}"
    if exc.code != 401:
        return Failure(f"{where}: {_one_line(exc.reason)}", FAILED)
    if not os.environ.get("PROVGRAPH_TOKEN"):
        return Failure(f"no token ({where}): {ENV_HINT} or set PROVGRAPH_TOKEN")
    return Failure(
        f"{where}: the token in PROVGRAPH_TOKEN is unknown or revoked: {ENV_HINT} for the "
        "local admin's, or create one with `provgraph token create`"
    )


def _provgraph(exc: BaseException) -> Failure:
    assert isinstance(exc, ProvgraphError)
    cause = exc.details.get("cause")
    because = f" ({_one_line(cause)})" if cause else ""
    return Failure(f"{exc.code}: {_one_line(exc.message)}{because}")


def _plain(exc: BaseException) -> Failure:
    return Failure(_one_line(exc))


def _infra(exc: BaseException) -> Failure:
    # The launcher's messages carry the tail of a server's log on purpose: kept whole.
    return Failure(f"error: {exc}", FAILED)


_Kinds = type[BaseException] | tuple[type[BaseException], ...]
_Explainer = Callable[[BaseException], Failure | None]
# Most specific first: a driver's own error says more than provgraph's error wrapping it.
_EXPLAINERS: tuple[tuple[_Kinds, _Explainer], ...] = (
    (CliError, _plain),
    (AuthError, _neo4j_auth),
    (ClientError, _neo4j_security),
    ((ServiceUnavailable, SessionExpired), _neo4j_unreachable),
    (ConfigurationError, _neo4j_config),
    (RejectedError, _log_refused),
    ((KafkaError, TransportError), _kafka),
    (urllib.error.HTTPError, _http),
    (ValidationError, _invalid_setting),
    (ProvgraphError, _provgraph),
    (InfraError, _infra),
)
