"""Known failures become one line naming the setting and the fix; anything else stays a bug."""

from __future__ import annotations

import io
import urllib.error
from email.message import Message

import pytest
from kafka.errors import KafkaTimeoutError, TopicAuthorizationFailedError
from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable
from pydantic import ValidationError

from provgraph.cli.errors import CliError, Failure, explain
from provgraph.client.errors import RejectedError, TransportError
from provgraph.core.errors import UnavailableError
from provgraph.infra.errors import PortInUseError
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.settings import QuerySettings
from provgraph.schemas.events.tokens import TokenRevokedPayload


@pytest.fixture(autouse=True)
def _no_provgraph_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NEO4J_PASSWORD", "NEO4J_URI", "NEO4J_USER", "KAFKA_BOOTSTRAP", "TOKEN"):
        monkeypatch.delenv(f"PROVGRAPH_{name}", raising=False)


def _raised_from(outer: Exception, cause: Exception) -> Exception:
    try:
        try:
            raise cause
        except Exception as exc:
            raise outer from exc
    except Exception as caught:
        return caught


def _explained(exc: BaseException) -> Failure:
    failure = explain(exc)
    assert failure is not None
    assert "\n" not in failure.message
    return failure


def test_no_neo4j_password_names_the_setting_and_the_env_file() -> None:
    failure = _explained(AuthError("missing key `credentials`"))
    assert failure.code == 2
    assert failure.message.startswith("no Neo4j password: ")
    assert "source .provgraph/env" in failure.message
    assert "PROVGRAPH_NEO4J_PASSWORD" in failure.message


def test_a_wrong_neo4j_password_says_it_was_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROVGRAPH_NEO4J_PASSWORD", "wrong")
    monkeypatch.setenv("PROVGRAPH_NEO4J_URI", "bolt://127.0.0.1:17687")
    failure = _explained(AuthError("The client is unauthorized"))
    assert failure.code == 2
    assert "bolt://127.0.0.1:17687 refused user 'neo4j'" in failure.message
    assert "PROVGRAPH_NEO4J_PASSWORD" in failure.message


def test_an_unreachable_neo4j_is_found_behind_provgraphs_own_error() -> None:
    wrapped = _raised_from(
        UnavailableError("the graph database is unavailable"),
        ServiceUnavailable("Couldn't connect to 127.0.0.1:7687:\nConnection refused"),
    )
    failure = _explained(wrapped)
    assert failure.code == 2
    assert failure.message.startswith("cannot reach Neo4j at neo4j://127.0.0.1:7687")
    assert "PROVGRAPH_NEO4J_URI" in failure.message and "make infra-up" in failure.message


def test_an_unreachable_kafka_names_the_bootstrap_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROVGRAPH_KAFKA_BOOTSTRAP", "127.0.0.1:1")
    wrapped = _raised_from(
        TransportError("cannot create the event-log topics"),
        KafkaTimeoutError("Unable to bootstrap from 127.0.0.1:1"),
    )
    failure = _explained(wrapped)
    assert failure.code == 2
    assert failure.message.startswith("cannot reach Kafka at 127.0.0.1:1 ")
    assert "PROVGRAPH_KAFKA_BOOTSTRAP" in failure.message


def test_a_kafka_refusal_is_not_called_unreachable() -> None:
    failure = _explained(TopicAuthorizationFailedError("provgraph.events"))
    assert "cannot reach" not in failure.message
    assert "TopicAuthorizationFailedError" in failure.message


def test_an_event_the_log_refused_is_a_failure_not_a_setting() -> None:
    failure = _explained(RejectedError("too large", []))
    assert failure == Failure("the event log refused the event: too large", 1)


def test_an_invalid_setting_names_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROVGRAPH_READ_TIMEOUT_S", "soon")
    with pytest.raises(ValidationError) as raised:
        QuerySettings()
    failure = _explained(raised.value)
    assert failure.message.startswith("invalid setting PROVGRAPH_READ_TIMEOUT_S: ")
    assert "'soon'" in failure.message


def test_an_invalid_event_is_not_mistaken_for_a_setting() -> None:
    with pytest.raises(ValidationError) as raised:
        TokenRevokedPayload.model_validate({})
    assert explain(raised.value) is None


def _unauthorized() -> urllib.error.HTTPError:
    url = "http://127.0.0.1:8080/v1/events"
    return urllib.error.HTTPError(url, 401, "Unauthorized", Message(), io.BytesIO(b"{}"))


def test_an_http_401_without_a_token_says_how_to_get_one() -> None:
    failure = _explained(_unauthorized())
    assert failure.code == 2
    assert failure.message.startswith("no token (http://127.0.0.1:8080/v1/events answered 401)")
    assert "PROVGRAPH_TOKEN" in failure.message and "source .provgraph/env" in failure.message


def test_an_http_401_with_a_token_says_it_was_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROVGRAPH_TOKEN", "pgt_revoked")
    failure = _explained(_unauthorized())
    assert "the token in PROVGRAPH_TOKEN is unknown or revoked" in failure.message


def test_provgraph_errors_keep_their_code_and_cli_errors_their_text() -> None:
    assert _explained(InvalidArgumentError("--depth must be 1..10")) == Failure(
        "invalid_argument: --depth must be 1..10"
    )
    assert _explained(CliError("no connection file x")) == Failure("no connection file x")


def test_launcher_errors_keep_their_exit_code_one() -> None:
    assert _explained(PortInUseError("port taken")) == Failure("error: port taken", 1)


def test_an_unknown_exception_is_left_to_show_its_traceback() -> None:
    assert explain(RuntimeError("a bug")) is None
    assert explain(_raised_from(RuntimeError("a bug"), KeyError("k"))) is None


def test_a_neo4j_lock_out_after_wrong_passwords_is_explained() -> None:
    lock_out = Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.Security.AuthenticationRateLimit", message="too many times"
    )
    failure = _explained(lock_out)
    assert failure.code == 2
    assert (
        "locked the user out" in failure.message and "PROVGRAPH_NEO4J_PASSWORD" in failure.message
    )
    other = Neo4jError._hydrate_neo4j(code="Neo.ClientError.Statement.SyntaxError", message="x")
    assert explain(other) is None


def test_a_bug_while_handling_a_known_error_is_not_hidden() -> None:
    try:
        try:
            raise AuthError("unauthorized")
        except AuthError:
            raise RuntimeError("a bug in the handler") from None
    except RuntimeError as bug:
        assert explain(bug) is None
    try:
        try:
            raise AuthError("unauthorized")
        except AuthError:
            raise RuntimeError("a bug in the handler")  # noqa: B904 - the point of the test
    except RuntimeError as bug:
        assert explain(bug) is None
