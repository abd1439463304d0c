"""The explorer's copy of the schema (web/schema.graphql) is the schema /graphql serves: its
query documents are validated against that copy, so a stale copy would let one break."""

from __future__ import annotations

from pathlib import Path

from provgraph.query.graphql.sdl import HEADER, main, sdl

COPY = Path(__file__).resolve().parents[3] / "web" / "schema.graphql"


def test_the_explorers_copy_is_current() -> None:
    assert COPY.read_text(encoding="utf-8") == sdl(), (
        "web/schema.graphql is stale: python -m provgraph.query.graphql.sdl web/schema.graphql"
    )


def test_the_sdl_holds_the_schemas_fields(tmp_path: Path) -> None:
    written = tmp_path / "schema.graphql"
    assert main([str(written)]) == 0
    text = written.read_text(encoding="utf-8")
    assert text.startswith(HEADER)
    assert "type Query {" in text and "resources: RunResources" in text
    assert main([]) == 2
