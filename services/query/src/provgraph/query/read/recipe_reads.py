"""The reads of reproduce and diff over Neo4j: one artifact, one run, a derivation chain."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from provgraph.query.read import cypher
from provgraph.query.read.convert import scope_params
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas.storage import public_deep

Record = Mapping[str, Any]


class RecipeReads:
    """The reads of one request, bound to its scope (the recipes' `RecipeSource`).

    Each call is one read transaction; records come back as plain maps of stored properties,
    without the internal version stamps at any depth.
    """

    def __init__(self, session: ReadSession, scope: Scope) -> None:
        self._session = session
        self._scope = scope_params(scope)

    def _read(self, text: str, **params: Any) -> list[Record]:
        records = self._session.run(text, {**self._scope, **params})
        return [public_deep(r.data()) for r in records]

    def artifact(self, node_id: str) -> Record | None:
        """A node of any lineage type: {type, props, runs (that generated it), exported}."""
        found = self._read(cypher.RECIPE_ARTIFACT, id=node_id)
        return found[0] if found else None

    def run(self, run_id: str) -> Record | None:
        """A run: {run, inputs, environments, bases, resumes}."""
        found = self._read(cypher.RECIPE_RUN, id=run_id)
        return found[0] if found else None

    def derivation(self, ids: Sequence[str]) -> tuple[list[Record], list[Record]]:
        """The dataset versions `ids` and those they derive from: (nodes, edges)."""
        found = self._read(cypher.DERIVATION, ids=list(ids))
        if not found:
            return [], []
        return list(found[0]["nodes"]), list(found[0]["edges"])
