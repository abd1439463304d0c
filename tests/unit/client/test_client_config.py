"""Settings from arguments and PROVGRAPH_* variables."""

from __future__ import annotations

from pathlib import Path

import pytest

from provgraph.client import (
    ClientSettings,
    ConfigError,
    HttpTransport,
    KafkaTransport,
    from_env,
    make_transport,
)


def test_kafka_is_chosen_when_a_bootstrap_is_set() -> None:
    settings = ClientSettings.from_env(
        {"PROVGRAPH_KAFKA_BOOTSTRAP": "k:9092", "PROVGRAPH_INGEST_URL": "http://i:8080"}
    )
    assert settings.transport == "kafka"
    assert settings.events_topic == "provgraph.events"
    assert isinstance(make_transport(settings), KafkaTransport)


def test_http_is_chosen_without_a_bootstrap() -> None:
    settings = ClientSettings.from_env({"PROVGRAPH_INGEST_URL": "http://i:8080"})
    transport = make_transport(settings)
    assert isinstance(transport, HttpTransport)
    assert transport.url == "http://i:8080/v1/events"


def test_arguments_win_over_variables() -> None:
    environ = {"PROVGRAPH_PROJECT": "from-env", "PROVGRAPH_ACTOR": "ci:nightly"}
    environ["PROVGRAPH_INGEST_URL"] = "http://i:8080"
    settings = ClientSettings.from_env(environ, project="from-arg")
    assert (settings.project, settings.actor) == ("from-arg", "ci:nightly")


def test_actor_defaults_to_the_login() -> None:
    settings = ClientSettings.from_env({"PROVGRAPH_INGEST_URL": "http://i:8080"})
    assert settings.actor is not None and settings.actor.startswith("user:")


@pytest.mark.parametrize(
    "environ",
    [{}, {"PROVGRAPH_TRANSPORT": "kafka"}, {"PROVGRAPH_TRANSPORT": "carrier-pigeon"}],
)
def test_a_transport_without_endpoint_is_a_clear_error(environ: dict[str, str]) -> None:
    with pytest.raises(ConfigError):
        ClientSettings.from_env(environ)


def test_from_env_builds_an_emitter(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PROVGRAPH_INGEST_URL", "http://127.0.0.1:9")
    monkeypatch.delenv("PROVGRAPH_KAFKA_BOOTSTRAP", raising=False)
    monkeypatch.setenv("PROVGRAPH_PROJECT", "proj")
    monkeypatch.setenv("PROVGRAPH_SPOOL_DIR", str(tmp_path))
    emitter = from_env(name="trainer")
    assert isinstance(emitter.transport, HttpTransport)
    assert (emitter.project, emitter.spool.directory) == ("proj", tmp_path)
    emitter.close(timeout=0)


def test_durability_comes_from_the_environment_and_is_checked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PROVGRAPH_INGEST_URL", "http://127.0.0.1:9")
    monkeypatch.delenv("PROVGRAPH_KAFKA_BOOTSTRAP", raising=False)
    monkeypatch.setenv("PROVGRAPH_DURABILITY", "memory")
    emitter = from_env(project="proj", spool_dir=tmp_path)
    assert emitter.durability == "memory"
    emitter.close(timeout=0)
    chosen = from_env(project="p", spool_dir=tmp_path, durability="spool")
    assert chosen.durability == "spool"
    chosen.close(timeout=0)
    monkeypatch.setenv("PROVGRAPH_DURABILITY", "sometimes")
    with pytest.raises(ConfigError):
        ClientSettings.from_env()
