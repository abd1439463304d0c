"""The server settings the Cypher endpoint relies on, written alike by the launcher's
neo4j.conf and by infra/docker-compose.yml (the image turns NEO4J_a_b__c into a.b_c)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from provgraph.infra.base import template
from provgraph.query.http.cypher_plan import READ_ONLY_PROCEDURES

COMPOSE = Path(__file__).resolve().parents[3] / "infra" / "docker-compose.yml"
HARDENING = {
    "dbms.security.allow_csv_import_from_file_urls": "false",
    "internal.dbms.cypher_ip_blocklist": "0.0.0.0/0,::/0",
}
ALLOWLIST = "dbms.security.procedures.allowlist"


def _conf() -> dict[str, str]:
    lines = template("neo4j.conf").splitlines()
    pairs = (line.split("=", 1) for line in lines if line and not line.startswith("#"))
    return {key: value for key, value in pairs}


def _compose() -> dict[str, str]:
    env = yaml.safe_load(COMPOSE.read_text())["services"]["neo4j"]["environment"]
    settings = {}
    for name, value in env.items():
        if name.startswith("NEO4J_") and name != "NEO4J_AUTH":
            key = re.sub(r"(?<!_)_(?!_)", ".", name.removeprefix("NEO4J_")).replace("__", "_")
            settings[key] = str(value)
    return settings


def test_load_csv_reads_no_file_and_no_url() -> None:
    conf, compose = _conf(), _compose()
    for key, value in HARDENING.items():
        assert conf[key] == value
        assert compose[key] == value


def test_no_plugin_procedure_loads() -> None:
    conf, compose = _conf(), _compose()
    assert conf[ALLOWLIST] == compose[ALLOWLIST]
    assert tuple(conf[ALLOWLIST].split(",")) == READ_ONLY_PROCEDURES
