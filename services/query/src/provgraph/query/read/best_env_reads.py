"""The reads of `best`, `env-diff` and `runs-with` over Neo4j: one round trip each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from provgraph.query.read import cypher
from provgraph.query.read.convert import scope_params
from provgraph.query.read.model import Scope
from provgraph.query.read.session import ReadSession
from provgraph.schemas.storage import dotted, public_deep

Record = Mapping[str, Any]


class BestEnvReads:
    """The reads of one request, bound to its scope; records are plain maps of stored
    properties, without the internal version stamps at any depth."""

    def __init__(self, session: ReadSession, scope: Scope) -> None:
        self._session = session
        self._scope = scope_params(scope)

    def _read(self, text: str, **params: Any) -> list[Record]:
        records = self._session.run(text, {**self._scope, **params})
        return [public_deep(r.data()) for r in records]

    def evaluations(self, model: str, metric: str, fetch: int) -> list[Record] | None:
        """The evaluation rows of `model` that record `metric` (at most `fetch`); None when
        the model is missing or unreadable."""
        found = self._read(
            cypher.BEST_EVALUATIONS, model=model, metric_key=dotted("metric", metric), fetch=fetch
        )
        return list(found[0]["rows"]) if found else None

    def environment_pair(self, a: str, b: str) -> Record:
        """{a, b, paths}: both snapshots' properties (None when missing) and the BASED_ON
        path between them ({nodes, rels}; none when unrelated)."""
        return self._read(cypher.ENV_PAIR, a=a, b=b)[0]

    def runs_with(
        self, keys: Sequence[str], version: str | None, project: str | None, fetch: int
    ) -> list[Record]:
        """Rows {run, environment, hits, experiment} of the runs whose environment stores a
        version under one of `keys` (equal to `version` when given)."""
        return self._read(
            cypher.RUNS_WITH, keys=list(keys), version=version, project=project, fetch=fetch
        )
