"""The committed JSON Schema files are exactly what the models generate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from provgraph.schemas import REGISTRY
from provgraph.schemas.jsonschema_gen import (
    SCHEMA_DIR,
    expected_files,
    main,
    schema_id,
    stale_files,
    write_all,
)
from provgraph.schemas.registry import type_and_version

pytestmark = pytest.mark.unit


def test_committed_schema_files_are_up_to_date() -> None:
    stale = stale_files()
    assert stale == [], f"regenerate with python -m provgraph.schemas.jsonschema_gen: {stale}"


def test_one_file_per_type_and_version_with_id_and_consts() -> None:
    for model in REGISTRY.models():
        event_type, version = type_and_version(model)
        schema = json.loads((SCHEMA_DIR / f"{event_type}.v{version}.json").read_text())
        assert schema["$id"] == schema_id(event_type, version)
        assert schema["$id"] == f"https://provgraph.dev/schemas/{event_type}/v{version}.json"
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["properties"]["event_type"]["const"] == event_type
        assert schema["properties"]["schema_version"]["const"] == version
        assert {"event_type", "schema_version", "subject", "payload"} <= set(schema["required"])


def test_check_mode_reports_stale_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--check", "--dir", str(tmp_path)]) == 1
    assert "stale:" in capsys.readouterr().err
    write_all(tmp_path)
    assert main(["--check", "--dir", str(tmp_path)]) == 0
    name = next(iter(expected_files()))
    (tmp_path / name).write_text("{}\n")
    (tmp_path / "gone.v1.json").write_text("{}\n")
    assert stale_files(tmp_path) == sorted([name, "gone.v1.json"])
    assert main(["--check", "--dir", str(tmp_path)]) == 1
