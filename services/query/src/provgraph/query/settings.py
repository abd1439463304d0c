"""Settings of the query service: one class, PROVGRAPH_* env vars."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class QuerySettings(BaseSettings):
    """How the query service reaches Neo4j and which limits protect it."""

    model_config = SettingsConfigDict(env_prefix="PROVGRAPH_", extra="ignore")

    neo4j_uri: str = "bolt://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: str = ""
    neo4j_database: str = "neo4j"

    query_host: str = "127.0.0.1"
    query_port: int = 8081

    # Authentication: on unless explicitly disabled (development only; logged at every start).
    auth_disabled: bool = False
    # How long an answer about a token (its principal and grants) may be reused.
    auth_cache_s: float = 1.0

    # Traversals: always bounded.
    lineage_default_depth: int = 5
    lineage_max_depth: int = 20
    lineage_default_limit: int = 1000
    lineage_max_limit: int = 10_000
    page_default_size: int = 50
    page_max_size: int = 500
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
