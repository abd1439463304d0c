"""Settings of the query service: one class, PROVGRAPH_* env vars (connections from core)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from provgraph.core.settings import AuthSettings, Neo4jSettings


class QuerySettings(Neo4jSettings, AuthSettings):
    """Where the query service listens and which limits protect it."""

    query_host: str = "127.0.0.1"
    query_port: int = 8081
    # The built web explorer (web/dist: index.html, graphiql.html, assets/), served at /ui and
    # as the GraphiQL page of /graphql; unset or not built: /ui answers `ui_not_built` (404).
    ui_dir: Path | None = None

    # Traversals: always bounded.
    lineage_default_depth: int = 5
    lineage_max_depth: int = 20
    lineage_default_limit: int = 1000
    lineage_max_limit: int = 10_000
    page_default_size: int = 50
    page_max_size: int = 500
    # `nodes` with a metric condition: the runs read at most to fill one page (the cursor then
    # continues after the last one read).
    list_scan_max: int = Field(default=5000, ge=1)
    # `effects`: the latest runs of a project read for one table (the earliest are left out).
    effects_max_runs: int = Field(default=5000, ge=1)
    # `search` (lessons): the best matches of the text the filters then narrow.
    lessons_candidates: int = Field(default=1000, ge=1)
    # `lint-names`, `collisions`: the records of a kind (the oldest first) one report checks.
    guards_max_records: int = Field(default=10_000, ge=1)
    # `checkpoints RUN`: the checkpoints of a run read for one answer (the latest steps).
    checkpoint_stages_max: int = Field(default=200, ge=1)
    read_timeout_s: float = 30.0

    # The read-only Cypher endpoint.
    cypher_timeout_s: float = 10.0
    cypher_row_cap: int = 10_000

    # GraphQL hardening.
    graphql_max_depth: int = 12
    graphql_max_aliases: int = 30
    graphql_max_tokens: int = 2_000
    graphql_max_complexity: int = 5_000
    graphql_introspection: bool = True
    # Query texts whose parsed and validated document is kept (0: none; see graphql/doccache.py).
    graphql_document_cache: int = Field(default=256, ge=0)
    # The service runs the interpreter's cyclic garbage collector every this many allocations
    # (`gc.set_threshold`; Python's own is 700, at which a large answer is walked again and
    # again while it is built: `provgraph.core.collector`); 0 keeps Python's.
    query_gc_threshold: int = Field(default=10_000, ge=0)

    # The model dossier's PDF: the same HTML printed by headless Chromium (a command on PATH or
    # a path to the executable); a missing one makes `format=pdf` answer `pdf_unavailable`.
    chromium_path: str = "chromium"
    pdf_timeout_s: float = Field(default=60.0, gt=0)
